// A post as LinkedIn lays it out: the author, the text folded after about
// 210 characters, its images in LinkedIn's grid (1 full width; 2 side by
// side; 3 one large and two; 4 two by two; 5 or more four, the last with
// "+N") or its document as a card with its title and pages, and the first
// comment under it. Then the service's warnings, in the dashboard's words,
// each with the way to fix it where there is one (a mention written as
// plain text: its URN, and the mention is written in).
import { h } from "../dom.js";
import { COMMENT_LIMIT, LINKEDIN_LIMIT, cutAt, formatNumber, graphemeCount } from "../text.js";
import { ownMedia } from "../widgets.js";

const SEE_MORE_AT = 210; // LinkedIn folds a post after about this many characters
const GRID_MOST = 4; // LinkedIn shows four pictures of a post, the fourth with "+N" for the rest
const MENTION_URN = /^urn:li:(?:person|organization):[A-Za-z0-9_-]+$/;

/** The preview's body. `values`: content, media (each {url, kind, alt,
 *  pages}), document_title, first_comment; `served`: what the service's
 *  last preview said; `act`: focusAlt(n), focusTitle(), fixMention(field,
 *  text, replacement) and `drafts` (a Map of the URNs typed, by text). */
export function renderPreview(values, served, channel, counts, act) {
  const text = h("p", { class: "preview-text" });
  const parts = shownParts(values.content);
  const { parts: folded, cut } = foldParts(parts, SEE_MORE_AT);
  if (cut) {
    const more = h("button", { type: "button", class: "see-more" }, "…see more");
    more.addEventListener("click", () => text.replaceChildren(...drawParts(parts)));
    text.append(...drawParts(folded), more);
  } else text.append(...drawParts(parts));
  const found = [
    ...(counts.content > LINKEDIN_LIMIT ? [overLength(counts.content)] : []),
    ...inWords(served.warnings ?? [], values, channel, counts, act),
  ];
  const warnings = found.length
    ? h("ul", { class: "preview-warnings" }, found.map((w) => h("li", { class: "alert alert-warning", dataset: { code: w.code } }, w.message)))
    : served.warnings
      ? h("p", { class: "hint preview-ok" }, "No warnings.")
      : null;
  return [
    h(
      "article",
      { class: "li-post", "aria-label": "The post as LinkedIn shows it" },
      h("p", { class: "preview-author" }, h("span", { class: "li-avatar", "aria-hidden": "true" }, initial(channel.name)), h("strong", {}, channel.name), served.author ? h("span", { class: "mono muted li-urn" }, served.author) : null),
      text,
      mediaLayout(values.media, values.document_title),
      values.first_comment?.trim() ? firstComment(channel, values.first_comment) : null,
    ),
    warnings,
    h(
      "p",
      { class: "hint preview-count" },
      h("strong", { class: "linkedin-count" }, `${formatNumber(counts.content)} of ${formatNumber(LINKEDIN_LIMIT)}`),
      " as LinkedIn counts: the text it is sent, with its reserved characters escaped, where an emoji counts 2.",
    ),
  ];
}

// A mention as LinkedIn reads one (docs/linkedin.md, "Escaping"): it shows
// the name alone, as a tag; a hashtag shows as a link.
const MENTION = /@\[([^\]\n]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/g;
const HASHTAG = /(^|\s)(#[\p{L}\p{N}_]+)/gu;
const MAY_START = /^$|[\s"'\p{Ps}\p{Pi}]$/u;

/** `text` as LinkedIn shows it: [{text, mention?: urn, hashtag?: true}]. */
export function shownParts(text) {
  const parts = [];
  let at = 0;
  const plain = (chunk) => {
    let from = 0;
    for (const found of chunk.matchAll(HASHTAG)) {
      const start = found.index + found[1].length;
      if (start > from) parts.push({ text: chunk.slice(from, start) });
      parts.push({ text: found[2], hashtag: true });
      from = start + found[2].length;
    }
    if (from < chunk.length) parts.push({ text: chunk.slice(from) });
  };
  for (const found of text.matchAll(MENTION)) {
    if (!MAY_START.test(found.index ? text[found.index - 1] : "")) continue; // glued to a word: plain text
    plain(text.slice(at, found.index));
    parts.push({ text: found[1], mention: found[2] });
    at = found.index + found[0].length;
  }
  plain(text.slice(at));
  return parts;
}

/** The first `max` characters of `parts` (whole ones), and whether any were left out. */
function foldParts(parts, max) {
  const out = [];
  let left = max;
  for (const part of parts) {
    const { text, cut } = cutAt(part.text, left);
    if (text) out.push({ ...part, text });
    left -= graphemeCount(text);
    if (cut) return { parts: out, cut: true };
  }
  return { parts: out, cut: false };
}

function drawParts(parts) {
  return parts.map((part) =>
    part.mention ? h("span", { class: "li-mention", title: part.mention }, part.text) : part.hashtag ? h("span", { class: "li-hashtag" }, part.text) : part.text,
  );
}

const initial = (name) => ([...(name ?? "").trim()][0] ?? "?").toUpperCase();

/** A post's media as LinkedIn lays them out: null when it has none. */
export function mediaLayout(media, documentTitle) {
  if (!media?.length) return null;
  const document = media.find((m) => m.kind === "document");
  if (document) return documentCard(document, documentTitle);
  const shown = media.slice(0, GRID_MOST);
  const rest = media.length - shown.length;
  const layout = ["one", "two", "three", "four"][shown.length - 1];
  return h(
    "div",
    { class: `li-media li-media-${rest ? "more" : layout}`, dataset: { count: media.length } },
    shown.map((medium, n) =>
      h(
        "div",
        { class: "li-cell" },
        ownMedia(medium.url) ? h("img", { src: medium.url, alt: medium.alt ?? "", loading: "lazy" }) : h("span", { class: "li-external mono", title: medium.url }, medium.url.replace(/^https?:\/\//, "").slice(0, 60)),
        rest && n === shown.length - 1 ? h("span", { class: "li-more", "aria-label": `and ${rest} more image${rest === 1 ? "" : "s"}` }, `+${rest}`) : null,
      ),
    ),
  );
}

/** A document as LinkedIn shows it in the feed: its title and page count
 *  above its first page. The page itself is not drawn here (the dashboard
 *  reads no PDF), so a sheet stands in for it. */
function documentCard(document, title) {
  const pages = document.pages ? `${formatNumber(document.pages)} page${document.pages === 1 ? "" : "s"}` : null;
  return h(
    "figure",
    { class: "li-document" },
    h("figcaption", { class: "li-document-head" }, h("strong", { class: "li-document-title" }, title?.trim() || h("span", { class: "muted" }, "No title yet")), pages ? h("span", { class: "li-document-pages" }, ` • ${pages}`) : null),
    h(
      "div",
      { class: "li-document-page", "aria-hidden": "true" },
      h("span", { class: "li-sheet" }, h("span", { class: "document-mark" }, "PDF"), h("span", { class: "li-sheet-lines" })),
      document.pages > 1 ? h("span", { class: "li-next" }, "›") : null,
      h("span", { class: "li-page-count" }, document.pages ? `1 / ${formatNumber(document.pages)}` : "1 / …"),
    ),
  );
}

function firstComment(channel, text) {
  return h(
    "div",
    { class: "li-comment" },
    h("p", { class: "li-comment-label hint" }, "First comment, posted right after the post"),
    h("div", { class: "li-comment-bubble" }, h("span", { class: "li-avatar li-avatar-small", "aria-hidden": "true" }, initial(channel.name)), h("div", {}, h("strong", {}, channel.name), h("p", { class: "li-comment-text" }, ...drawParts(shownParts(text))))),
  );
}

/** The service's warnings in the dashboard's words, with their fixes. */
function inWords(warnings, values, channel, counts, act) {
  const missingAlt = [];
  const out = [];
  for (const w of warnings) {
    if (w.code === "over_length") continue; // said from the count, which the counter shows too
    if (w.code === "alt_text_missing") {
      const n = Number(/media_urls\[(\d+)\]/.exec(w.message)?.[1]);
      if (Number.isInteger(n)) {
        missingAlt.push(n);
        continue;
      }
    }
    out.push(inWordsOne(w, values, channel, counts, act));
  }
  if (missingAlt.length) out.push(altTextMissing(missingAlt, act));
  return out;
}

function inWordsOne(w, values, channel, counts, act) {
  switch (w.code) {
    case "author_unknown":
      return authorUnknown(channel);
    case "plain_mention":
      return plainMention(w, act);
    case "document_title_missing":
      return {
        code: w.code,
        message: [h("strong", {}, "The document has no title. "), "LinkedIn shows it above the pages, and the post cannot be scheduled without it. ", h("button", { type: "button", class: "link-button", onclick: act.focusTitle }, "Give it a title")],
      };
    case "first_comment_over_length": {
      const length = counts.comment;
      return {
        code: w.code,
        message: [h("strong", {}, "First comment too long for LinkedIn. "), `It is ${formatNumber(length)} of ${formatNumber(COMMENT_LIMIT)} as LinkedIn counts: shorten it by ${formatNumber(length - COMMENT_LIMIT)} to schedule the post.`],
      };
    }
    case "link_preview_hidden":
      return {
        code: w.code,
        message: [h("strong", {}, "No link card. "), `With ${values.media.some((m) => m.kind === "document") ? "a document" : "images"}, LinkedIn shows ${values.media.length === 1 ? "it" : "them"}, not the link's preview card. A link in the first comment keeps the post's reach.`],
      };
    default:
      return w;
  }
}

function altTextMissing(indexes, act) {
  const names = indexes.map((n) => `Image ${n + 1}`);
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return {
    code: "alt_text_missing",
    message: [
      h("strong", {}, `${listed} ${names.length === 1 ? "has" : "have"} no alt text. `),
      "People who use a screen reader will not know what ",
      names.length === 1 ? "it shows. " : "they show. ",
      indexes.map((n, i) => [i ? " · " : "", h("button", { type: "button", class: "link-button", onclick: () => act.focusAlt(n) }, `Describe image ${n + 1}`)]),
    ],
  };
}

/** "@Jane Doe" typed as plain text tags no one: a field for the person's
 *  (or page's) URN writes the mention in its place; or leave out the "@". */
function plainMention(w, act) {
  const name = w.text.slice(1);
  const id = `mention-${[...w.text].map((c) => c.codePointAt(0).toString(36)).join("")}-${w.field}`;
  const urn = h("input", { id, class: "mention-urn", autocomplete: "off", spellcheck: "false", placeholder: "urn:li:person:… or urn:li:organization:…", value: act.drafts.get(w.text) ?? "", dataset: { focusKey: id } });
  const error = h("p", { class: "mention-error", role: "alert" });
  urn.addEventListener("input", () => act.drafts.set(w.text, urn.value));
  const tag = () => {
    const value = mentionUrn(urn.value);
    if (!value) {
      error.textContent = `Paste ${name}'s URN: urn:li:person:<id> for a member, urn:li:organization:<number> (or the page's number, or its linkedin.com/company/<number> address) for a page.`;
      urn.setAttribute("aria-invalid", "true");
      urn.focus();
      return;
    }
    act.drafts.delete(w.text);
    act.fixMention(w.field, w.text, `@[${name}](${value})`);
  };
  urn.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault(); // not the form's submit
      tag();
    }
  });
  const where = w.field === "first_comment" ? "the first comment" : "the text";
  return {
    code: w.code,
    message: [
      h("p", { class: "mention-words" }, h("strong", {}, `“${w.text}” tags no one. `), `In ${where} it is plain text: LinkedIn tags a person or a page only from a mention that carries their URN.`),
      h(
        "div",
        { class: "mention-fix" },
        h("label", { for: id }, `LinkedIn URN of ${name}`),
        h("div", { class: "mention-row" }, urn, h("button", { type: "button", class: "button button-small", onclick: tag }, `Tag ${name}`)),
        error,
        h("button", { type: "button", class: "link-button", onclick: () => act.fixMention(w.field, w.text, name) }, `Leave it untagged: remove the @`),
      ),
    ],
  };
}

/** A URN, or a page's number or company address as its URN; null otherwise. */
function mentionUrn(value) {
  const text = value.trim();
  const number = /^\d+$/.exec(text)?.[0] ?? /linkedin\.com\/company\/(\d+)/i.exec(text)?.[1];
  if (number) return `urn:li:organization:${number}`;
  return MENTION_URN.test(text) ? text : null;
}

/** `text` with every plain `mention` (where a mention may start, as the
 *  service reads one, and not the start of a longer name) replaced. */
export function replaceMention(text, mention, replacement) {
  const escaped = mention.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(^|[\\s"'\\p{Ps}\\p{Pi}])${escaped}(?![\\p{L}\\p{N}_'’-])`, "gu");
  return text.replace(pattern, (_, before) => before + replacement);
}

export function overLength(length) {
  return {
    code: "over_length",
    message: [h("strong", {}, "Too long for LinkedIn. "), `It is ${formatNumber(length)} of ${formatNumber(LINKEDIN_LIMIT)} as LinkedIn counts: shorten it by ${formatNumber(length - LINKEDIN_LIMIT)} to schedule it.`],
  };
}

/** The service says the channel has no author_urn; here, how to fix that in the dashboard. */
function authorUnknown(channel) {
  const where = channel.missing
    ? [`${channel.name} is not set up as a channel. `, h("a", { href: `#/channels?new=${encodeURIComponent(channel.id)}` }, "Set it up under Channels"), " and give it its LinkedIn author."]
    : [`${channel.name} has no LinkedIn author yet, so the automation must fill it in. `, h("a", { href: `#/channels?edit=${encodeURIComponent(channel.id)}` }, `Edit ${channel.name}`), " under Channels and fill in its LinkedIn author."];
  return { code: "author_unknown", message: [h("strong", {}, "No author. "), where] };
}
