"""The analytics answer as one CSV table for a spreadsheet, every row
marked with the section it comes from (totals, week, top, grid,
suggested_slot), so that a filter on the first column gives each part.

A cell that a spreadsheet would read as a formula is neutralised as OWASP
advises against CSV injection: text beginning with `=`, `+`, `-`, `@`, a
tab or a carriage return gets a leading `'`, so that Excel, LibreOffice and
Google Sheets show it as text and run nothing (`=HYPERLINK(...)` in a
post's text stays those characters). The file is comma-separated, but a
spreadsheet set to split on `;` (much of Europe) or on tabs splits a cell
wherever one of those is, quoted or not: so `'` also goes before any `=`,
`+`, `-` or `@` that follows a separator (`,`, `;`, a tab, or a line break,
spaces between), and no field of any split starts a formula
(`Results;=2+3;` is written `"Results;'=2+3;"`). A cell holding any
separator, a quote or a line break is quoted, always. The file starts with
a UTF-8 byte-order mark, so that Excel reads accents and emoji right.
"""

import re
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.analytics.report import FIGURES
from content_publishing.planning import clock

COLUMNS = (
    "section",
    "week",
    "day",
    "time",
    "post_id",
    "published_at",
    "channel",
    "content",
    "live_url",
    "posts",
    "measured",
    *FIGURES,
    "engagement",
    "mean_engagement",
    "lift",
    "from",
    "to",
    "timezone",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
AFTER_A_SEPARATOR = re.compile(r"([,;\t\r\n] *)(?=[=+\-@])")
NEEDS_QUOTES = re.compile(r'[,;\t"\r\n]')
BOM = "\ufeff"


def neutralise(value):
    """A cell as written: text that would start a formula, at its start or
    after a separator, gets a ' there."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS):
        value = "'" + value
    return AFTER_A_SEPARATOR.sub(r"\1'", value)


def written(value):
    """A neutralised cell as the file holds it: quoted (its quotes doubled)
    when it holds a separator, a quote or a line break."""
    text = str(value)
    if NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def rows(report):
    """The report's rows as dicts of COLUMNS (missing ones empty)."""
    totals = report["totals"]
    yield {
        "section": "totals",
        "channel": report["channel"],
        **totals,
        "from": report["from"],
        "to": report["to"],
        "timezone": report["timezone"],
    }
    for week in report["weeks"]:
        yield {"section": "week", "channel": report["channel"], **week}
    for post in report["top"]:
        yield {"section": "top", **post}
    for cell in report["grid"]:
        yield {
            "section": "grid",
            "channel": report["channel"],
            "day": cell["day"],
            "time": f"{cell['hour']:02d}:00",
            **{k: cell[k] for k in ("posts", "measured", "engagement")},
        }
    for slot in report["suggested_slots"]:
        yield {
            "section": "suggested_slot",
            "channel": report["channel"],
            **{k: slot[k] for k in ("day", "time", "engagement", "lift")},
            "measured": slot["posts"],
        }


def to_csv(report):
    """The whole file as text: CRLF line ends, as RFC 4180 has them."""
    lines = [",".join(COLUMNS)]
    for row in rows(report):
        lines.append(",".join(written(neutralise(row.get(column))) for column in COLUMNS))
    return BOM + "".join(line + "\r\n" for line in lines)


def file_name(report):
    """analytics-<channel or all>-<first day>-<last day>.csv, the days in
    the report's zone, ASCII only (a header is Latin-1; a brand id may be
    any text)."""
    where = clock.zone(report["timezone"])
    first = timestamps.parse(report["from"]).astimezone(where).date()
    last = (timestamps.parse(report["to"]) - timedelta(microseconds=1)).astimezone(where).date()
    name = f"analytics-{report['channel'] or 'all'}-{first}-{last}.csv"
    return "".join(c if c.isascii() and (c.isalnum() or c in "-._") else "_" for c in name)
