"""LinkedIn, one network behind the publisher's seam (docs/linkedin.md,
docs/linkedin-connect.md). A leaf: it imports no feature package.

    text.py        the escaping LinkedIn needs of a text, its length limits, UTM tags
    api.py         LinkedIn's APIs as the service calls them: OAuth, pages, a plan's steps
    signin.py      a channel's sign-in: the scopes, its state, whose posts the channel's are
    plan.py        the publish plan's builder: uploads, the post, the first comment
    network.py     LinkedIn behind the publisher's seam (publisher/network.py)

Posts and planning use its text rules, which this package's face names
(`linkedin.escape`, `linkedin.fits` and the rest of text.py's), and its plan
builder; the publisher reaches it only through its seam.
"""

from content_publishing.linkedin.text import (
    COMMENT_LIMIT,
    COMMENTARY_LIMIT,
    check_length,
    comment_fits,
    comment_too_long,
    commentary_length,
    escape,
    fits,
    length,
    too_long,
    urls,
    with_utm,
)

__all__ = [
    "COMMENTARY_LIMIT",
    "COMMENT_LIMIT",
    "check_length",
    "comment_fits",
    "comment_too_long",
    "commentary_length",
    "escape",
    "fits",
    "length",
    "too_long",
    "urls",
    "with_utm",
]
