// Text as people and LinkedIn count it.
//
// People count characters as they see them: grapheme clusters (Intl.Segmenter),
// so that "👩‍💻" is one character and a snippet never cuts it into "�".
// LinkedIn counts its 3,000 on the text it is sent: the commentary, with its
// reserved characters escaped (docs/linkedin.md), in UTF-16 code units, where
// an emoji counts 2 and an escaped "(" counts 2. The composer's counter and
// its preview show that one count, the service's own once its preview answers.
// A first comment is escaped and counted the same way, against 1,250.

export const LINKEDIN_LIMIT = 3000;
export const COMMENT_LIMIT = 1250; // a first comment, counted the same way

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

// The service's escaping (content_publishing/linkedin/text.py, docs/linkedin.md),
// so that the count is right while the preview is on its way: a mention, an
// http(s) URL (narrowly: RFC 3986's characters, balanced parentheses, no
// trailing punctuation) and a hashtag's "#" pass through; every other
// reserved character gets a backslash. tests/test_dashboard_plan.py checks
// it against the service's on the service's own tables.
const RESERVED = ["\\", "|", "{", "}", "@", "[", "]", "(", ")", "<", ">", "#", "*", "_", "~"];
const MENTION = /@\[([^\]\n]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/y;
const ANCHOR = /@\[|#|:\/\//g;
const URL_REST = /[A-Za-z0-9][-A-Za-z0-9._~:/?#@!$&'()*+,;=%]*/y;
const TRAILING = ".,:;!?'\"";
// Python's str.isspace and str.isalnum, which the service's rules use.
const SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const ALNUM = /^[\p{L}\p{N}]$/u;
const OPENING = /^[\p{Ps}\p{Pi}"']$/u;

/** The whole character at index `i`, and the one that ends just before it. */
const charAt = (text, i) => (i < text.length ? String.fromCodePoint(text.codePointAt(i)) : "");
function charBefore(text, i) {
  if (i <= 0) return "";
  const code = text.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text[i - 1];
}

function plain(text) {
  let out = text;
  for (const c of RESERVED) out = out.replaceAll(c, `\\${c}`);
  return out;
}

/** How much of `candidate` (a URL and what may follow it) is the URL. */
function urlEnd(candidate) {
  const opened = [];
  let end = candidate.length;
  for (let i = 0; i < candidate.length; i += 1) {
    if (candidate[i] === "(") opened.push(i);
    else if (candidate[i] === ")") {
      if (!opened.length) {
        end = i;
        break;
      }
      opened.pop();
    }
  }
  if (opened.length) end = opened[0];
  let url = candidate.slice(0, end);
  while (url && TRAILING.includes(url.at(-1))) url = url.slice(0, -1);
  return url.length;
}

/** [start, end, what it becomes] of the mention, URL or hashtag "#" that
 *  the anchor at `at` opens, or null. */
function specialAt(text, at, anchor, position) {
  if (anchor === "#") {
    const starts = at === 0 || SPACE.test(charBefore(text, at));
    return starts && ALNUM.test(charAt(text, at + 1)) ? [at, at + 1, "#"] : null;
  }
  if (anchor === "@[") {
    const before = charBefore(text, at);
    if (at > 0 && !SPACE.test(before) && !OPENING.test(before)) return null;
    MENTION.lastIndex = at;
    const mention = MENTION.exec(text);
    return mention ? [at, at + mention[0].length, `@[${plain(mention[1])}](${mention[2]})`] : null;
  }
  for (const start of [at - 5, at - 4]) {
    if (start < position || !/^https?$/i.test(text.slice(start, at))) continue;
    const before = charBefore(text, start);
    if (start > 0 && (ALNUM.test(before) || before === "_")) return null;
    URL_REST.lastIndex = at + 3;
    const rest = URL_REST.exec(text);
    if (!rest) return null;
    const end = start + urlEnd(text.slice(start, at + 3 + rest[0].length));
    return [start, end, text.slice(start, end)];
  }
  return null;
}

/** `text` as LinkedIn's commentary carries it. */
export function linkedinEscape(text) {
  let out = "";
  let position = 0;
  for (const anchor of text.matchAll(ANCHOR)) {
    if (anchor.index < position) continue; // inside the URL or mention just taken
    const found = specialAt(text, anchor.index, anchor[0], position);
    if (!found) continue;
    out += plain(text.slice(position, found[0])) + found[2];
    position = found[1];
  }
  return out + plain(text.slice(position));
}

/** The length LinkedIn holds against its limit: UTF-16 code units of the escaped text. */
export const linkedinLength = (text) => linkedinEscape(text).length;

const number = new Intl.NumberFormat("en");
export const formatNumber = (n) => number.format(n);
