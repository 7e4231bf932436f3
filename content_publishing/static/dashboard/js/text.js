// Text as people and LinkedIn count it.
//
// People count characters as they see them: grapheme clusters (Intl.Segmenter),
// so that "👩‍💻" is one character and a snippet never cuts it into "�".
// LinkedIn counts its 3,000 on the text it is sent: the commentary, with its
// reserved characters escaped (docs/linkedin.md), in UTF-16 code units, where
// an emoji counts 2 and an escaped "(" counts 2. The composer's counter and
// its preview show that one count, the service's own once its preview answers.

export const LINKEDIN_LIMIT = 3000;

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** How many characters a person sees in `text`. */
export function graphemeCount(text) {
  let n = 0;
  for (const _ of segmenter.segment(text)) n += 1;
  return n;
}

/** The first `max` characters of `text` (whole grapheme clusters), and
 *  whether anything was left out. */
export function cutAt(text, max) {
  let out = "";
  let n = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (n === max) return { text: out, cut: true };
    out += segment;
    n += 1;
  }
  return { text: out, cut: false };
}

// The service's escaping (content_publishing/linkedin.py), so that the count
// is right while the preview is still on its way: a mention, an http(s) URL
// and a hashtag's "#" pass through; every other reserved character gets a
// backslash.
const RESERVED = new Set("\\|{}@[]()<>#*_~");
const SPECIAL = /(@\[([^\]\n]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\))|([Hh][Tt][Tt][Pp][Ss]?:\/\/\S+)|((?:^|(?<=\s))#(?=[\p{L}\p{N}]))/gu;

const plain = (text) => Array.from(text, (c) => (RESERVED.has(c) ? `\\${c}` : c)).join("");

/** `text` as LinkedIn's commentary carries it. */
export function linkedinEscape(text) {
  let out = "";
  let position = 0;
  for (const match of text.matchAll(SPECIAL)) {
    out += plain(text.slice(position, match.index));
    if (match[1]) out += `@[${plain(match[2])}](${match[3]})`;
    else if (match[4]) out += match[4];
    else out += "#";
    position = match.index + match[0].length;
  }
  return out + plain(text.slice(position));
}

/** The length LinkedIn holds against its limit: UTF-16 code units of the escaped text. */
export const linkedinLength = (text) => linkedinEscape(text).length;

const number = new Intl.NumberFormat("en");
export const formatNumber = (n) => number.format(n);
