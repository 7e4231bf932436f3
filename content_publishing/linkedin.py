"""The LinkedIn-ready request for a post, and the escaping its text needs.

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
what the user wants to read.

LinkedIn takes at most 3,000 characters of commentary, counted after
escaping. Its documentation does not say in which unit; the service counts
UTF-16 code units (`length`), the stricter way: an emoji outside the Basic
Multilingual Plane counts two, as it does in Java and JavaScript.
"""

import re
import unicodedata

from content_publishing.errors import validation_error
from content_publishing.planning.plan import channel_of
from content_publishing.store import channels as channel_store

RESERVED = frozenset("\\|{}@[]()<>#*_~")
COMMENTARY_LIMIT = 3000  # LinkedIn's limit on the escaped commentary, in UTF-16 code units
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


def request_for(post, author_urn, version, api_base):
    """What the automation sends to LinkedIn to publish `post`: method, URL,
    headers and body of `POST /rest/posts`, and the media it must upload
    first (their URNs then go into the body's `content`)."""
    return {
        "method": "POST",
        "url": f"{api_base.rstrip('/')}/rest/posts",
        "headers": {
            "LinkedIn-Version": version,
            "X-Restli-Protocol-Version": "2.0.0",
            "Content-Type": "application/json",
        },
        "body": {
            "author": author_urn,
            "commentary": escape(post["content"]),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        },
        "media": list(post["media_urls"]),
    }


def warnings(post, request):
    """What would make the post come out other than meant: [{code, message}]."""
    found = []
    if request["body"]["author"] is None:
        found.append(
            {
                "code": "author_unknown",
                "message": "The post's channel has no author_urn, so the automation must fill "
                "in the author itself (set it with PATCH /functions/v1/channels-item/{id}).",
            }
        )
    escaped = length(request["body"]["commentary"])
    if escaped > COMMENTARY_LIMIT:
        found.append(
            {
                "code": "over_length",
                "message": f"The escaped text is {escaped} characters (UTF-16 code units); "
                f"LinkedIn takes at most {COMMENTARY_LIMIT}, so the post cannot be scheduled.",
            }
        )
    if post["media_urls"] and urls(post["content"]):
        found.append(
            {
                "code": "link_preview_hidden",
                "message": "The post has media and a link: LinkedIn then shows the media, not "
                "the link's preview card.",
            }
        )
    return found


def authors_of(user_id, posts):
    """{channel id: author_urn} of the channels of `posts` (one read)."""
    return channel_store.author_urns(user_id, {channel_of(post) for post in posts})


def requests_for(user_id, posts, version, api_base, authors=None):
    """{post id: its request}, the author of each from its channel (one
    read for all of them, unless `authors` (authors_of) was read already)."""
    if authors is None:
        authors = authors_of(user_id, posts)
    return {
        post["id"]: request_for(post, authors.get(channel_of(post)), version, api_base)
        for post in posts
    }


def preview(user_id, post, version, api_base):
    """What the automation would be handed for `post` (a stored post, or the
    fields of one), with the warnings: a dry run that stores nothing."""
    post = {"brand_id": None, "media_urls": [], **post, "id": post.get("id", "preview")}
    request = requests_for(user_id, [post], version, api_base)[post["id"]]
    return {
        "linkedin_request": request,
        "characters": length(post["content"]),
        "warnings": warnings(post, request),
    }
