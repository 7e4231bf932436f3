"""What LinkedIn checks in a request, written apart from the service so that
the stand-in (harness/linkedin_standin.py) can catch the service's mistakes.

Each check returns None, or (status, code, message) as LinkedIn would refuse:

- `headers_problem`: `Authorization: Bearer <token>` (401), a six-digit
  `LinkedIn-Version`, `X-Restli-Protocol-Version: 2.0.0` (400) and a JSON
  `Content-Type` (415);
- `post_problem`: the Posts API body: `author` a person or organization
  URN, `commentary`, `visibility`, `distribution`, `lifecycleState`, no
  field the API does not know, and `commentary` in LinkedIn's "little" text
  format (422). Its `content` is checked by the stand-in, which knows which
  URNs it issued;
- `content_shape_problem`: `content.media` ({id, altText | title}) or
  `content.multiImage` ({images: [{id, altText}]}, 2 to 20 images);
- `comment_problem`: a Comments API body ({actor, object, message: {text}}).

The little text format reserves ``\\ | { } @ [ ] ( ) < > # * _ ~``: each
must be escaped with a backslash, except in a mention
`@[Name](urn:li:person:ID)` (at the start, after white space or after an
opening bracket or quote), a hashtag (`#` at the start or after white
space, then a letter or digit) and an http(s) URL. LinkedIn itself answers
201 and publishes the text cut off at such a character; the stand-in
refuses it with a 422 so that a test sees it. A URL is read narrowly, so
that nothing passes here that LinkedIn might not read as part of a link: it
starts after the start or a character that is not a letter, digit or `_`,
has a letter or digit after `//`, and runs over the ASCII characters RFC
3986 allows unescaped but `[ ]`; parentheses count only in balanced pairs,
and punctuation and quotes at its end are not part of it. `commentary` is
at most 3,000 characters, counted in UTF-16 code units (422 otherwise).
"""

import re
import unicodedata

RESERVED = frozenset("\\|{}@[]()<>#*_~")
KNOWN_FIELDS = {
    "author",
    "commentary",
    "visibility",
    "distribution",
    "lifecycleState",
    "isReshareDisabledByAuthor",
    "content",
    "contentLandingPage",
    "contentCallToActionLabel",
    "reshareContext",
    "container",
    "adContext",
}
ALT_TEXT_MAX = 4086  # characters, LinkedIn's limit
TITLE_MAX = 400
COMMENT_MAX = 1250
MULTI_IMAGE = (2, 20)
_MENTION = re.compile(
    r"@\[(?P<name>(?:\\.|[^\]\\\n])*)\]\(urn:li:(?:person|organization):[A-Za-z0-9_-]+\)"
)
_URL_CHARACTERS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#@!$&'()*+,;=%"
)
COMMENTARY_LIMIT = 3000
AUTHOR = re.compile(r"urn:li:(?:person|organization):[A-Za-z0-9_-]+")
IMAGE_URN = re.compile(r"urn:li:image:[A-Za-z0-9_-]+")
DOCUMENT_URN = re.compile(r"urn:li:document:[A-Za-z0-9_-]+")


def unescaped_reserved(text):
    """The first reserved character of `text` that is neither escaped nor
    part of a mention, hashtag or URL, as (index, character); None if none."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 < len(text) and text[i + 1] in RESERVED:
                i += 2
                continue
            return i, c
        url = url_length(text, i)
        if url:
            i += url
            continue
        if c == "@" and _may_open(text, i) and (mention := _MENTION.match(text, i)):
            inner = unescaped_reserved(mention["name"])
            if inner is not None:
                return mention.start("name") + inner[0], inner[1]
            i = mention.end()
            continue
        if (
            c == "#"
            and (i == 0 or text[i - 1].isspace())
            and i + 1 < len(text)
            and text[i + 1].isalnum()
        ):
            i += 1
            continue
        if c in RESERVED:
            return i, c
        i += 1
    return None


def _may_open(text, i):
    """A mention is read only where one can begin: the start, after white
    space, or after an opening bracket or quote; glued to a word or a URL
    (`x@[...`, `http://@[...`) LinkedIn may not read it as one."""
    if i == 0 or text[i - 1].isspace() or text[i - 1] in "\"'":
        return True
    return unicodedata.category(text[i - 1]) in ("Ps", "Pi")  # ( [ { « “ 「 ...


def url_length(text, i):
    """How many characters of `text` from `i` are a URL (0: none there)."""
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        return 0
    scheme = next((s for s in ("http://", "https://") if text[i : i + len(s)].lower() == s), None)
    if scheme is None:
        return 0
    start = i + len(scheme)
    if start >= len(text) or not (text[start].isascii() and text[start].isalnum()):
        return 0
    end, depth, first_open = start, 0, None
    while end < len(text) and text[end] in _URL_CHARACTERS and text[end] not in "[]":
        if text[end] == "(":
            if depth == 0:
                first_open = end
            depth += 1
        elif text[end] == ")":
            if depth == 0:
                break
            depth -= 1
        end += 1
    if depth:  # a ( never closed: the URL ends before it
        end = first_open
    while text[end - 1] in ".,:;!?'\"":
        end -= 1
    return end - i


def headers_problem(headers, token, json_body=True):
    """`headers` with lower-case names."""
    if headers.get("authorization") != f"Bearer {token}":
        return 401, "INVALID_ACCESS_TOKEN", "Invalid access token"
    if not re.fullmatch(r"\d{6}", headers.get("linkedin-version", "")):
        return 400, "VERSION_MISSING", "A version must be present in LinkedIn-Version"
    if headers.get("x-restli-protocol-version") != "2.0.0":
        return 400, "BAD_REQUEST", "X-Restli-Protocol-Version must be 2.0.0"
    if json_body and (
        headers.get("content-type", "").split(";")[0].strip().lower() != "application/json"
    ):
        return 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"
    return None


def _unprocessable(message):
    return 422, "UNPROCESSABLE_ENTITY", message


def text_problem(field, text):
    found = unescaped_reserved(text)
    if found:
        index, character = found
        return _unprocessable(
            f"/{field}: reserved character {character!r} at index {index} is not escaped "
            "(LinkedIn would cut the text off there)"
        )
    return None


def post_problem(body):
    """What LinkedIn would refuse in a Posts API body, `content` aside."""
    if not isinstance(body, dict):
        return _unprocessable("The request body is not a JSON object")
    unknown = sorted(set(body) - KNOWN_FIELDS)
    if unknown:
        return _unprocessable(f"Unpermitted fields present in REQUEST_BODY: {', '.join(unknown)}")
    for field in ("author", "commentary", "visibility", "distribution", "lifecycleState"):
        if field not in body or body[field] is None:
            return _unprocessable(
                "Field Value validation failed in REQUEST_BODY: Data Processing Exception "
                f"while processing fields [/{field}]"
            )
    if not isinstance(body["author"], str) or not AUTHOR.fullmatch(body["author"]):
        return _unprocessable(f"/author: {body['author']!r} is not a person or organization URN")
    if not isinstance(body["commentary"], str):
        return _unprocessable("/commentary must be a string")
    if body["visibility"] not in {"PUBLIC", "CONNECTIONS", "LOGGED_IN", "CONTAINER"}:
        return _unprocessable(f"/visibility: unknown value {body['visibility']!r}")
    if body["lifecycleState"] not in {"PUBLISHED", "DRAFT"}:
        return _unprocessable(f"/lifecycleState: unknown value {body['lifecycleState']!r}")
    distribution = body["distribution"]
    if not isinstance(distribution, dict) or distribution.get("feedDistribution") not in {
        "MAIN_FEED",
        "NONE",
    }:
        return _unprocessable("/distribution/feedDistribution must be MAIN_FEED or NONE")
    units = len(body["commentary"].encode("utf-16-le")) // 2
    if units > COMMENTARY_LIMIT:
        return _unprocessable(f"/commentary: {units} characters, more than {COMMENTARY_LIMIT}")
    return text_problem("commentary", body["commentary"])


def content_shape_problem(content):
    """The shape of a post's `content`; None also when there is none. The
    URNs it names are checked by the stand-in, which issued them."""
    if content is None:
        return None
    if not isinstance(content, dict) or len(content) != 1:
        return _unprocessable("/content must hold exactly one of media, multiImage, article, poll")
    [(kind, value)] = content.items()
    if kind == "media":
        return _media_problem(value)
    if kind == "multiImage":
        return _multi_image_problem(value)
    return _unprocessable(f"/content/{kind}: the stand-in takes media and multiImage only")


def _media_problem(media):
    if not isinstance(media, dict) or set(media) - {"id", "altText", "title"}:
        return _unprocessable("/content/media: only id, altText and title are permitted")
    urn = media.get("id")
    if not isinstance(urn, str) or not (IMAGE_URN.fullmatch(urn) or DOCUMENT_URN.fullmatch(urn)):
        return _unprocessable(f"/content/media/id: {urn!r} is not an image or document URN")
    if DOCUMENT_URN.fullmatch(urn):
        title = media.get("title")
        if not isinstance(title, str) or not 1 <= len(title) <= TITLE_MAX:
            return _unprocessable(
                f"/content/media/title: a document needs a title of 1 to {TITLE_MAX} characters"
            )
        if "altText" in media:
            return _unprocessable("/content/media/altText: a document takes no altText")
    return _alt_text_problem("/content/media/altText", media)


def _multi_image_problem(multi):
    images = multi.get("images") if isinstance(multi, dict) else None
    if not isinstance(images, list) or set(multi) != {"images"}:
        return _unprocessable("/content/multiImage: images, a list, is required")
    low, high = MULTI_IMAGE
    if not low <= len(images) <= high:
        return _unprocessable(
            f"/content/multiImage/images: {len(images)} images; a multi-image post has "
            f"{low} to {high}"
        )
    for i, image in enumerate(images):
        where = f"/content/multiImage/images/{i}"
        if not isinstance(image, dict) or set(image) - {"id", "altText"}:
            return _unprocessable(f"{where}: only id and altText are permitted")
        if not isinstance(image.get("id"), str) or not IMAGE_URN.fullmatch(image["id"]):
            return _unprocessable(f"{where}/id: {image.get('id')!r} is not an image URN")
        problem = _alt_text_problem(f"{where}/altText", image)
        if problem:
            return problem
    return None


def _alt_text_problem(where, item):
    if "altText" not in item:
        return None
    alt = item["altText"]
    if not isinstance(alt, str) or len(alt) > ALT_TEXT_MAX:
        return _unprocessable(f"{where}: a string of at most {ALT_TEXT_MAX} characters")
    return None


def content_urns(content):
    """The (where, URN) pairs a post's content names."""
    if not isinstance(content, dict):
        return []
    if "media" in content:
        return [("/content/media/id", content["media"]["id"])]
    if "multiImage" in content:
        return [
            (f"/content/multiImage/images/{i}/id", image["id"])
            for i, image in enumerate(content["multiImage"]["images"])
        ]
    return []


def comment_problem(body, post_urn):
    """What the Comments API refuses in a comment on `post_urn`."""
    if not isinstance(body, dict):
        return _unprocessable("The request body is not a JSON object")
    unknown = sorted(set(body) - {"actor", "object", "message", "parentComment", "content"})
    if unknown:
        return _unprocessable(f"Unpermitted fields present in REQUEST_BODY: {', '.join(unknown)}")
    if not isinstance(body.get("actor"), str) or not AUTHOR.fullmatch(body["actor"]):
        return _unprocessable(f"/actor: {body.get('actor')!r} is not a person or organization URN")
    if body.get("object") != post_urn:
        return _unprocessable(
            f"/object: {body.get('object')!r} is not the post of the path, {post_urn}"
        )
    message = body.get("message")
    text = message.get("text") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text:
        return _unprocessable("/message/text is required")
    if len(text) > COMMENT_MAX:
        return _unprocessable(f"/message/text: over {COMMENT_MAX} characters")
    return text_problem("message/text", text)
