"""`GET /health`: liveness without a key, for load balancers and `make run`."""

import logging

from flask import Blueprint

from content_publishing.store import keys as key_store

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)


@bp.get("/health")
def health():
    try:
        database = key_store.ping()
    except Exception:
        log.warning("health check: database does not answer", exc_info=True)
        database = False
    status = "ok" if database else "degraded"
    return {"status": status, "database": database}
