"""What the service accepts as text: no control characters, and not blank.

Valid JSON can still carry text no person can see or a terminal should
print: NUL and other control characters, or content made only of white
space and invisible characters (zero-width spaces and the like). Those are
refused, so that what is stored is what the network will show.

The rules are written once as character classes, used by the checks below
and, as JSON Schema patterns, by the OpenAPI document, so that clients and
the server agree on them.
"""

import re

from marshmallow import ValidationError

# C0 controls except tab, newline and carriage return, DEL, and C1 controls.
_CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_LINE_BREAKS = r"\t\n\r"
# Characters that show nothing: Unicode White_Space and Default_Ignorable_Code_Point
# in the Basic Multilingual Plane, plus U+2800 BRAILLE PATTERN BLANK.
_INVISIBLE = (
    r"\t\n\v\f\r \x1c-\x1f\x85\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5"
    r"\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164"
    r"\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
)
# The same property outside the BMP (musical symbol formatters, tag characters, ...).
_INVISIBLE_ASTRAL = "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"


def pattern(multiline, blank_ok):
    """The JSON Schema pattern of a text field (Python `re` reads it the same way)."""
    control = _CONTROL if multiline else _CONTROL + _LINE_BREAKS
    if blank_ok:
        return f"^[^{control}]*$"
    return f"^[^{control}]*[^{control}{_INVISIBLE}][^{control}]*$"


_CONTROLS = {
    ml: re.compile(f"[{_CONTROL if ml else _CONTROL + _LINE_BREAKS}]") for ml in (True, False)
}
_VISIBLE = re.compile(f"[^{_CONTROL}{_LINE_BREAKS}{_INVISIBLE}{_INVISIBLE_ASTRAL}]")


def no_controls(multiline):
    """A validator refusing control characters (tab and line breaks only if `multiline`)."""
    found = _CONTROLS[multiline]

    def check(value):
        bad = found.search(value)
        if bad:
            allowed = "; tab and line breaks are allowed" if multiline else ""
            raise ValidationError(
                f"Must not contain control characters (found U+{ord(bad.group()):04X}{allowed})."
            )

    return check


def not_blank(value):
    if not _VISIBLE.search(value):
        raise ValidationError(
            "Must contain a visible character, not only white space or invisible ones."
        )
