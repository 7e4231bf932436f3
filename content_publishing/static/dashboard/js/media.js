// A post's media as the service reads them (docs/linkedin.md, "What a post
// carries"): which are items of the media library, which are documents, and
// the limits of one post. Shared by the composer, its preview and the post page.
import { call } from "./api.js";

export const MAX_IMAGES = 20;
export const ALT_TEXT_MAX = 4086;
export const DOCUMENT_TITLE_MAX = 400;
export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
export const DOCUMENT_TYPES = ["application/pdf"];
// A URL ending so is a document at LinkedIn; anything else is taken for an image.
const DOCUMENT_EXTENSIONS = ["pdf", "ppt", "pptx", "doc", "docx"];
const LIBRARY_PATH = /\/media\/([0-9a-f]{32})\.(jpg|png|gif|webp|pdf)$/;

/** The media library id `url` names (media:<id>, or any address ending in
 *  /media/<id>.<ext>), or null for another site's URL. */
export function libraryId(url) {
  const reference = /^media:([0-9a-f]{32})$/.exec(url);
  if (reference) return reference[1];
  try {
    const parsed = new URL(url);
    return parsed.search ? null : (LIBRARY_PATH.exec(parsed.pathname)?.[1] ?? null);
  } catch {
    return null;
  }
}

/** "image" or "document", as the service decides it: by the extension. */
export function kindOf(url) {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL (yet): its text as typed
  }
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return DOCUMENT_EXTENSIONS.includes(ext) ? "document" : "image";
}

/** The library's records of the items `urls` name, by id: {id: record},
 *  and {id: null} for one no longer in the library (deleted). */
export async function libraryRecords(urls) {
  const ids = [...new Set(urls.map(libraryId).filter(Boolean))];
  const records = await Promise.all(
    ids.map((id) =>
      call("GET", `/media-item/${id}`).then(
        ({ data }) => data,
        (error) => (error.status === 404 ? null : undefined), // undefined: not known (no answer)
      ),
    ),
  );
  return Object.fromEntries(ids.map((id, n) => [id, records[n]]).filter(([, record]) => record !== undefined));
}

/** The alt text LinkedIn is handed for the `n`th medium: the post's own
 *  (media_alt; "" is none), else the library item's. */
export function altTextOf(url, own, library) {
  if (own !== null && own !== undefined) return own;
  return library[libraryId(url)]?.alt_text ?? "";
}

/** A file name as a document title: "Q3_report-final.pdf" -> "Q3 report final". */
export function titleFromFileName(name) {
  return name
    .replace(/\.[A-Za-z0-9]+$/, "")
    .replace(/[_-]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, DOCUMENT_TITLE_MAX);
}
