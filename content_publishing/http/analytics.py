"""Analytics: what the caller's published posts did over a range.

GET /functions/v1/analytics       totals, weeks, top posts, the weekday x hour grid, suggested slots (posts:read)
GET /functions/v1/analytics.csv   the same rows as one CSV table for a spreadsheet (posts:read)
"""

from flask import Blueprint, Response, g

from content_publishing import timestamps
from content_publishing.analytics import report, sheet
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc
from content_publishing.schemas.analytics import analytics_query_schema, analytics_schema
from content_publishing.store.db import snapshot

bp = Blueprint("analytics", __name__)

ABOUT = (
    "Counts the caller's Published posts by when they were published, each with its latest "
    "stats snapshot, in the channel's time zone (`timezone` says which). `from` and `to` are "
    "RFC 3339 or dates (YYYY-MM-DD: whole days in that zone); at most 400 days apart; by "
    "default the 90 days up to now."
)


def _report(query):
    with snapshot():
        return report.build(g.workspace_id, query, timestamps.now_text())


@bp.get("/analytics")
@doc(
    "Analytics of the caller's published posts",
    query=analytics_query_schema,
    response=analytics_schema,
    description=ABOUT + " `totals` and `weeks` (Monday first) give each group's figures and "
    "engagement rate; `top` the 10 posts with the highest engagement; `grid` the mean "
    "engagement of each weekday and hour with its post counts; `suggested_slots` up to 3 "
    "posting times that did clearly better than the channel's mean (only with `channel`).",
)
@require_scope("posts:read")
def analytics(query):
    return analytics_schema.dump(_report(query))


@bp.get("/analytics.csv")
@doc(
    "Analytics as CSV, for a spreadsheet",
    query=analytics_query_schema,
    description=ABOUT + " The answer is text/csv (UTF-8 with a byte-order mark): one table, "
    "its first column the section each row comes from (totals, week, top, grid, "
    "suggested_slot), the other columns those of the JSON answer. A text cell beginning with "
    "=, +, -, @, a tab or a carriage return starts with ' so that no spreadsheet runs it as a "
    "formula.",
)
@require_scope("posts:read")
def analytics_csv(query):
    found = _report(query)
    return Response(
        sheet.to_csv(found),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{sheet.file_name(found)}"'},
    )
