"""The escaping LinkedIn needs of a post's text (and of its first comment),
and the limits on their length. The request built from them is the publish
plan's (plan.py).

LinkedIn's Posts API reads `commentary` in its "little" text format, where
`\\ | { } @ [ ] ( ) < > # * _ ~` are reserved. An unescaped `(` makes LinkedIn
answer 201 and publish the post cut off at that character, which is why
every automation must escape the text, and why the service does it once,
here, for all of them. Every reserved character gets a backslash, except:

- a mention, `@[Name](urn:li:person:ID)` or `@[Name](urn:li:organization:ID)`,
  at the start, after white space or after an opening bracket or quote,
  which passes through (reserved characters inside Name are escaped);
- a hashtag: `#` at the start or after white space, followed by a letter or
  digit (`#launch`, `#2026`); its `#` stays, and what follows the tag's word
  is escaped as usual (`#launch_day` is `#launch\\_day`);
- an http:// or https:// URL, left intact so that it still links. What
  counts as one is narrow on purpose, since whatever the URL rule takes is
  never escaped (`url_end`).

Text that is already escaped is escaped again (`\\(` becomes `\\\\\\(`): the
service cannot tell an intended backslash from an escape, and the content is
what the reader wants to read.

A channel's UTM tags are added to the URLs of a text as it is handed over
(`with_utm`), the same URLs escaping leaves intact, so that a tagged link
still links.

LinkedIn takes at most 3,000 characters of commentary, counted after
escaping. Its documentation does not say in which unit; the service counts
UTF-16 code units (`length`), the stricter way: an emoji outside the Basic
Multilingual Plane counts two, as it does in Java and JavaScript.
"""

import re
import unicodedata
from urllib.parse import quote, unquote_plus

from content_publishing.errors import validation_error

RESERVED = frozenset("\\|{}@[]()<>#*_~")
COMMENTARY_LIMIT = 3000  # LinkedIn's limit on the escaped commentary, in UTF-16 code units
COMMENT_LIMIT = 1250  # LinkedIn's limit on a comment's escaped text, counted the same way
_MENTION = re.compile(
    r"@\[(?P<name>[^\]\n]*)\]\((?P<urn>urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)"
)
# Where something other than plain text may start: a mention's "@[", a
# hashtag's "#", a URL's "://" (its scheme is read backwards from there). A
# search for these three is many times faster than one for the whole rules.
_ANCHOR = re.compile(r"@\[|#|://")
_SCHEME = re.compile(r"https?", re.IGNORECASE)
# What may follow "http(s)://": a letter or digit, then the characters RFC
# 3986 allows unescaped, but [ and ].
_URL_REST = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._~:/?#@!$&'()*+,;=%]*")
# Not the end of a URL: punctuation and quotes around a link in a sentence.
_TRAILING = ".,:;!?'\""


def escape(text):
    """`text` in LinkedIn's little text format (the rules above)."""
    out, position = [], 0
    for start, end, _, kept in _special_parts(text):
        out.append(_plain(text[position:start]))
        out.append(kept)
        position = end
    out.append(_plain(text[position:]))
    return "".join(out)


def urls(text):
    """The URLs of `text` that escaping leaves intact, in order."""
    return [text[start:end] for start, end, kind, _ in _special_parts(text) if kind == "url"]


def with_utm(text, utm, channel_id, post_id):
    """`text` with the query `utm` (a channel's, checked by
    schemas/channels.check_utm) added to each http(s) URL, {channel} and
    {post_id} replaced by the ids; a parameter the URL already has keeps its
    own value. Unchanged without `utm`."""
    if not utm or "://" not in text:
        return text
    values = {"{channel}": _query_value(channel_id), "{post_id}": _query_value(post_id)}
    pairs = []
    for part in utm.split("&"):
        name, value = part.split("=", 1)
        for mark, replacement in values.items():
            value = value.replace(mark, replacement)
        pairs.append((name, value))
    out, position = [], 0
    for start, end, kind, _ in _special_parts(text):
        if kind == "url":
            out += [text[position:start], _tagged(text[start:end], pairs)]
            position = end
    out.append(text[position:])
    return "".join(out)


def _query_value(text):
    """An id as a query value: percent-encoded, `.` too (at the end of a
    link it would read as the sentence's full stop)."""
    return quote(str(text), safe="").replace(".", "%2E")


def _tagged(url, pairs):
    """`url` with each (name, value) of `pairs` it has no parameter of,
    added to its query, before its fragment."""
    base, hash_mark, fragment = url.partition("#")
    path, question_mark, query = base.partition("?")
    held = {unquote_plus(p.split("=", 1)[0]) for p in query.split("&") if p}
    added = [f"{name}={value}" for name, value in pairs if unquote_plus(name) not in held]
    if not added:
        return url
    if not question_mark and path.count("/") == 2:  # https://example.com: the root
        path += "/"
    kept = query.rstrip("&")
    query = "&".join(([kept] if kept else []) + added)
    return f"{path}?{query}{hash_mark}{fragment}"


def _special_parts(text):
    """(start, end, kind, what it becomes) of each mention, URL and
    hashtag's # in `text`, in order; the rest is plain text."""
    position = 0
    for anchor in _ANCHOR.finditer(text):
        at = anchor.start()
        if at < position:  # inside the URL or mention just taken
            continue
        found = _special_at(text, at, anchor.group(), position)
        if found:
            yield found
            position = found[1]


def _special_at(text, at, anchor, position):
    """The part (as _special_parts) that `anchor` at `at` opens, or None."""
    if anchor == "#":
        starts = at == 0 or text[at - 1].isspace()
        if starts and at + 1 < len(text) and text[at + 1].isalnum():
            return at, at + 1, "hashtag", "#"
        return None
    if anchor == "@[":
        mention = _MENTION.match(text, at) if _mention_may_start(text, at) else None
        if mention is None:  # "@[" that is no mention: plain text
            return None
        return at, mention.end(), "mention", f"@[{_plain(mention['name'])}]({mention['urn']})"
    for start in (at - 5, at - 4):  # "https" or "http", and no word character before it
        if start < position or not _SCHEME.fullmatch(text, start, at):
            continue
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            return None
        rest = _URL_REST.match(text, at + 3)
        if rest is None:
            return None
        end = start + url_end(text[start : rest.end()])
        return start, end, "url", text[start:end]
    return None


def _mention_may_start(text, start):
    """A mention starts the text, a word (after white space) or a bracketed
    or quoted part, never the middle of a word or a URL (`http://@[...`)."""
    if start == 0:
        return True
    before = text[start - 1]
    return before.isspace() or before in "\"'" or unicodedata.category(before) in ("Ps", "Pi")


def url_end(candidate):
    """How much of `candidate` is the URL. `candidate` is `http(s)://`, a
    letter or digit, and what follows of the characters RFC 3986 allows
    unescaped, but `[` and `]`: anything else (`| { } < > \\ " ^ ``, white
    space, invisible format characters such as a zero-width space or a bidi
    control, any other non-ASCII character) has ended it already. Then:

    - parentheses belong to it only in balanced pairs: it ends before a `)`
      that closes nothing, and before a `(` that is never closed;
    - punctuation and quotes at its end (`. , : ; ! ? ' "`) are the
      sentence's, not the URL's.
    """
    opened, end = [], len(candidate)
    for i, c in enumerate(candidate):
        if c == "(":
            opened.append(i)
        elif c == ")":
            if not opened:
                end = i
                break
            opened.pop()
    if opened:  # only left open when no ")" ended it early
        end = opened[0]
    return len(candidate[:end].rstrip(_TRAILING))


def _plain(text):
    """Every reserved character escaped: the backslash first, so that the
    escapes added after it are not escaped again (str.replace is several
    times faster than a translate table or a regex here)."""
    text = text.replace("\\", "\\\\")
    for c in RESERVED - {"\\"}:
        if c in text:
            text = text.replace(c, f"\\{c}")
    return text


def length(text):
    """Characters as LinkedIn's limit counts them: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def commentary_length(content):
    """Characters of the commentary `content` becomes, once escaped."""
    return length(escape(content))


def check_length(content):
    """400 naming `content` when its escaped commentary is over LinkedIn's
    limit: for every way a post becomes (or stays) Scheduled."""
    if not fits(content):
        raise validation_error({"content": [too_long(content)]})


def too_long(content):
    """Why a post with `content` cannot be Scheduled."""
    return (
        f"Escaped for LinkedIn the text is {commentary_length(content)} characters (UTF-16 code "
        f"units, each reserved character counting two), and LinkedIn takes at most "
        f"{COMMENTARY_LIMIT}. Shorten it to schedule it."
    )


def fits(content):
    """Whether a post with `content` can be handed to an automation."""
    if len(content) * 2 <= COMMENTARY_LIMIT:  # escaping at most doubles a character
        return True
    return commentary_length(content) <= COMMENTARY_LIMIT


def comment_fits(text):
    """Whether a first comment of `text` is within LinkedIn's limit once escaped."""
    return len(text) * 2 <= COMMENT_LIMIT or length(escape(text)) <= COMMENT_LIMIT


def comment_too_long(text):
    """Why a post with the first comment `text` cannot be Scheduled."""
    return (
        f"Escaped for LinkedIn the first comment is {length(escape(text))} characters (UTF-16 "
        f"code units, each reserved character counting two), and LinkedIn takes at most "
        f"{COMMENT_LIMIT}. Shorten it to schedule the post."
    )
