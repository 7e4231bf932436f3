"""The LinkedIn-ready request for a post, and the escaping its text needs.

LinkedIn's Posts API reads `commentary` in its "little" text format, where
`\\ | { } @ [ ] ( ) < > # * _ ~` are reserved. An unescaped `(` makes LinkedIn
answer 201 and publish the post cut off at that character, which is why
every automation must escape the text, and why the service does it once,
here, for all of them. Every reserved character gets a backslash, except:

- a mention, `@[Name](urn:li:person:ID)` or `@[Name](urn:li:organization:ID)`,
  which passes through (reserved characters inside Name are escaped);
- a hashtag: `#` at the start or after white space, followed by a letter or
  digit (`#launch`, `#2026`); its `#` stays, and what follows the tag's word
  is escaped as usual (`#launch_day` is `#launch\\_day`);
- an http:// or https:// URL, up to the next white space, which is left
  intact so that it still links.

Text that is already escaped is escaped again (`\\(` becomes `\\\\\\(`): the
service cannot tell an intended backslash from an escape, and the content is
what the user wants to read.
"""

import re

from content_publishing.planning.plan import channel_of
from content_publishing.store import channels as channel_store

RESERVED = frozenset("\\|{}@[]()<>#*_~")
COMMENTARY_LIMIT = 3000  # LinkedIn's limit on the escaped commentary
_SPECIAL = re.compile(
    r"(?P<mention>@\[(?P<name>[^\]\n]*)\]\((?P<urn>urn:li:(?:person|organization):[A-Za-z0-9_-]+)\))"
    r"|(?P<url>(?i:https?)://\S+)"
    r"|(?P<hashtag>(?:^|(?<=\s))#(?=[^\W_]))"
)


def escape(text):
    """`text` in LinkedIn's little text format (the rules above)."""
    out, position = [], 0
    for match in _SPECIAL.finditer(text):
        out.append(_plain(text[position : match.start()]))
        if match["mention"]:
            out.append(f"@[{_plain(match['name'])}]({match['urn']})")
        elif match["url"]:
            out.append(match["url"])
        else:
            out.append("#")
        position = match.end()
    out.append(_plain(text[position:]))
    return "".join(out)


def _plain(text):
    return "".join(f"\\{c}" if c in RESERVED else c for c in text)


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
    length = len(request["body"]["commentary"])
    if length > COMMENTARY_LIMIT:
        found.append(
            {
                "code": "over_length",
                "message": f"The escaped text is {length} characters; LinkedIn takes at most "
                f"{COMMENTARY_LIMIT}.",
            }
        )
    if post["media_urls"] and re.search(r"(?i)https?://", post["content"]):
        found.append(
            {
                "code": "link_preview_hidden",
                "message": "The post has media and a link: LinkedIn then shows the media, not "
                "the link's preview card.",
            }
        )
    return found


def requests_for(user_id, posts, version, api_base):
    """{post id: its request}, the author of each from its channel (one
    read for all of them)."""
    authors = channel_store.author_urns(user_id, {channel_of(post) for post in posts})
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
        "characters": len(post["content"]),
        "warnings": warnings(post, request),
    }
