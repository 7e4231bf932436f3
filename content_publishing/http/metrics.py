"""`GET /metrics`: Prometheus' text format, without a key (docs/operations.md, "Metrics and logs").

Registered only when FLASK_METRICS=1. It is outside /functions/v1 and not in
the OpenAPI document: it is for the operator's monitoring, not for API
clients, and shows no workspace's data.
"""

from flask import Blueprint

from content_publishing.serving import metrics

bp = Blueprint("metrics", __name__)


@bp.get("/metrics")
def scrape():
    body, content_type = metrics.exposition()
    return body, 200, {"Content-Type": content_type, "Cache-Control": "no-store"}
