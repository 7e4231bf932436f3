"""Which URLs the service accepts: absolute http(s) URLs as a browser reads them.

Parsing follows the WHATWG URL Standard, the one browsers implement, through
ada (`ada-url`, the parser inside Node.js), so that a media or live URL that
opens in a browser is accepted here: hyphenated and internationalised hosts,
IP addresses, any port up to 65535, upper-case schemes, a trailing dot.

Three things a browser would quietly repair or tolerate are refused instead,
because what is stored would then differ from what gets fetched, or leak:
white space, control characters and backslashes anywhere; a missing `//`;
and credentials (`user:pass@`). The URL is stored as sent.
"""

import re

import ada_url
from marshmallow import ValidationError

MAX_LENGTH = 2048
SCHEMES = ("http://", "https://")
_REWRITTEN = re.compile(r"[\x00-\x20\x7f-\x9f\\]")
DESCRIPTION = (
    "An absolute http or https URL as a browser accepts it (WHATWG URL Standard): "
    "internationalised and hyphenated hosts, IP addresses and ports are fine; white space, "
    "control characters, backslashes and credentials (user:pass@) are refused."
)
# For the OpenAPI document: the scheme and a host-ish first character. The
# parser decides the rest, which no regular expression states exactly.
PATTERN = r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#@\\]"


def parse(value):
    """ada's parts of an acceptable URL (hostname in ASCII), or ValidationError saying why."""
    if not value[:8].lower().startswith(SCHEMES):
        raise ValidationError(
            "Must be an absolute http or https URL, such as https://example.com/a.png."
        )
    bad = _REWRITTEN.search(value)
    if bad:
        raise ValidationError(
            f"Must not contain white space, control characters or backslashes "
            f"(found U+{ord(bad.group()):04X}); percent-encode them."
        )
    authority = re.split(r"[/?#]", value.split("://", 1)[1], maxsplit=1)[0]
    if not authority:
        raise ValidationError("Must name a host after the scheme, such as https://example.com/.")
    if "@" in authority:
        raise ValidationError(
            "Must not carry a user name or password (user:pass@): credentials in a URL end up "
            "in logs and browser history. Send them another way."
        )
    if not ada_url.check_url(value):
        raise ValidationError("Not a valid URL (the host, port or IP address cannot be read).")
    return ada_url.parse_url(value)


def check(value):
    """marshmallow validator form of `parse`."""
    parse(value)
