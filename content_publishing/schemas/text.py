"""What the service accepts as text: no control characters, and not blank.

Valid JSON can still carry text no person can see or a terminal should
print: NUL and other control characters, or content made only of white
space and invisible characters (zero-width spaces and the like). Those are
refused, so that what is stored is what the network will show.

The rules are written once as character classes, used by the checks below
and, as JSON Schema patterns, by the OpenAPI document, so that clients and
the server agree on them. They agree on every character but the invisible
ones above U+FFFF (see PATTERN_NOTE): the server counts text made only of
those as blank, the pattern cannot say so.
"""

import re

from marshmallow import ValidationError

# C0 controls except tab, newline and carriage return, DEL, and C1 controls.
_CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
# What ends a line, refused where a field holds one line: tab, newline and
# carriage return, and U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR,
# which JavaScript, JSON viewers and many editors also break lines at.
_LINE_BREAKS = r"\t\n\r\u2028\u2029"
# Characters that show nothing: Unicode White_Space and Default_Ignorable_Code_Point
# in the Basic Multilingual Plane, plus U+2800 BRAILLE PATTERN BLANK.
_INVISIBLE = (
    r"\t\n\v\f\r \x1c-\x1f\x85\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5"
    r"\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164"
    r"\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
)
# The same property outside the BMP (musical symbol formatters, tag characters, ...).
_INVISIBLE_ASTRAL = "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"

# Why the documented pattern leaves the invisible characters above U+FFFF out.
# An OpenAPI 3.0 pattern is an ECMA-262 5.1 regular expression, which reads
# text as UTF-16 code units: such a character is two of them (a surrogate
# pair). No spelling of it is read alike by every reader of the document:
# surrogate escapes (\uDB40\uDC20) are refused by jsonschema-rs
# (schemathesis' validator) and match nothing in Python; \U000E0020 and
# \u{E0020} are not ECMA-262 5.1 (nor valid with the `u` flag, or Python,
# respectively); the characters themselves in a range are a syntax error in
# JavaScript without the `u` flag (Swagger UI's reading). So the pattern
# counts them as visible, and only the server refuses text made of nothing
# else; tests/test_openapi.py checks that this is the one disagreement.
PATTERN_NOTE = (
    "Text made only of white space and invisible characters is refused as blank, "
    "including the invisible characters above U+FFFF that the pattern cannot name "
    "(tag characters U+E0000-U+E0FFF, musical symbol formatting U+1D173-U+1D17A, "
    "shorthand format controls U+1BCA0-U+1BCA3)."
)


# Bidirectional formatting characters (marks, embeddings, overrides,
# isolates): an override shows what follows it backwards, so a member's name
# could reverse or hide the rest of a mail subject it is written into.
_BIDI = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI_FOUND = re.compile(f"[{_BIDI}]")


def _refused(multiline, bidi_ok=True):
    """The characters a field refuses anywhere in its text."""
    refused = _CONTROL if multiline else _CONTROL + _LINE_BREAKS
    return refused if bidi_ok else refused + _BIDI


def pattern(multiline, blank_ok, bidi_ok=True):
    """The JSON Schema pattern of a text field (Python `re` reads it the same way)."""
    refused = _refused(multiline, bidi_ok)
    if blank_ok:
        return f"^[^{refused}]*$"
    return f"^[^{refused}]*[^{refused}{_INVISIBLE}][^{refused}]*$"


_REFUSED = {ml: re.compile(f"[{_refused(ml)}]") for ml in (True, False)}
_VISIBLE = re.compile(f"[^{_CONTROL}{_LINE_BREAKS}{_INVISIBLE}{_INVISIBLE_ASTRAL}]")
_ASTRAL_INVISIBLE = re.compile(f"[{_INVISIBLE_ASTRAL}]")


def no_controls(multiline):
    """A validator refusing control characters (tab and line breaks only if `multiline`)."""
    found = _REFUSED[multiline]

    def check(value):
        bad = found.search(value)
        if bad:
            what = "control characters" if multiline else "control characters or line breaks"
            allowed = "; tab and line breaks are allowed" if multiline else ""
            raise ValidationError(
                f"Must not contain {what} (found U+{ord(bad.group()):04X}{allowed})."
            )

    return check


def no_bidi_controls(value):
    """A validator refusing bidirectional formatting characters (a name's)."""
    bad = _BIDI_FOUND.search(value)
    if bad:
        raise ValidationError(
            "Must not contain bidirectional formatting characters (found "
            f"U+{ord(bad.group()):04X}): they change the order in which the text around it "
            "is shown."
        )


def without_bidi_controls(value):
    """`value` without bidirectional formatting characters (a mail subject's
    parts: names stored before they were refused)."""
    return _BIDI_FOUND.sub("", value)


def not_blank(value):
    if not _VISIBLE.search(value):
        raise ValidationError(
            "Must contain a visible character, not only white space or invisible ones."
        )


def blank_beyond_the_pattern(value):
    """Whether `value` is blank only by the invisible characters above U+FFFF:
    the documented pattern accepts it, the server refuses it (PATTERN_NOTE)."""
    return _ASTRAL_INVISIBLE.search(value) is not None and _VISIBLE.search(value) is None
