"""Prometheus metrics, served at GET /metrics when FLASK_METRICS=1 (docs/operations.md, "Metrics and logs").

Counted in the process that serves the request:

    cps_http_requests_total{method, route, status}
    cps_http_request_duration_seconds{method, route}      (histogram)
    cps_http_requests_in_progress
    cps_auth_failures_total{reason}                        (missing, malformed, unknown, revoked, expired,
                                                            session: a session cookie refused)

`route` is the URL rule (`/functions/v1/api-v2-posts-item/<post_id>`), never
the path, so ids do not make a series each; a path that matches no rule is
`unmatched`, a method the service does not know is `other`.

Read from the database at each scrape:

    cps_database_size_bytes
    cps_outbox_backlog                                     (pending webhook deliveries)
    cps_webhook_deliveries{outcome}                        (the delivery log by outcome)

Deliveries are sent by the dispatcher, a process of its own that may run on
another host and several times over. The outbox table is the one place that
knows them all, whichever dispatcher sent them and whether it has restarted
since, so the outcomes are read from it at scrape time rather than counted
in the dispatcher's memory. They are gauges because the delivery log is
purged after FLASK_DELIVERY_LOG_DAYS.

gunicorn's workers are processes of their own, so the counters use
prometheus_client's multiprocess mode: each worker writes its values to
files in PROMETHEUS_MULTIPROC_DIR, and a scrape, answered by any worker,
adds up every file. gunicorn.conf.py prepares the directory (it must be set
before prometheus_client is first imported) and removes the in-progress
gauge of a worker that died. Without the variable (the test client, `flask
run`) the values live in the process.

prometheus_client is imported by an app with FLASK_METRICS=1 only: the
others (every dispatcher and CLI call, and a service without metrics) are
spared its import, about a tenth of the app's.
"""

import logging
import os
import time

from flask import current_app, request

from content_publishing.store import db, deliveries

log = logging.getLogger("metrics")  # a short name: the `logger` field operators filter on
METHODS = frozenset({"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"})
OUTCOMES = ("pending", "delivered", "failed", "cancelled")
STARTED = "cps.started"  # environ key: when the request began


class Metrics:
    """The metrics of one app. Created in the worker, on its first request,
    so that gunicorn's master (which builds an app to check the settings)
    leaves no files of its own in the multiprocess directory."""

    def __init__(self, registry):
        from prometheus_client import Counter, Gauge, Histogram

        self.requests = Counter(
            "cps_http_requests",
            "Requests answered, by method, route template and status.",
            ["method", "route", "status"],
            registry=registry,
        )
        self.duration = Histogram(
            "cps_http_request_duration_seconds",
            "Time from the first hook to the response being ready, by method and route template.",
            ["method", "route"],
            registry=registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.in_progress = Gauge(
            "cps_http_requests_in_progress",
            "Requests being served (a sync worker serves one at a time).",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.auth_failures = Counter(
            "cps_auth_failures",
            "Requests refused with 401, by reason.",
            ["reason"],
            registry=registry,
        )


def multiprocess_directory():
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def _metrics():
    app = current_app._get_current_object()
    found = app.extensions.get("metrics")
    if found is None:
        found = app.extensions["metrics"] = Metrics(app.extensions["metrics_registry"])
    return found


def _start():
    """First before_request hook: even a refused body (limits.py) is timed."""
    request.environ[STARTED] = time.perf_counter()
    _metrics().in_progress.inc()


def _finish(response):
    started = request.environ.get(STARTED)
    if started is None:
        return response
    metrics = _metrics()
    method = request.method if request.method in METHODS else "other"
    rule = request.url_rule
    route = rule.rule if rule is not None else "unmatched"
    metrics.requests.labels(method, route, str(response.status_code)).inc()
    metrics.duration.labels(method, route).observe(time.perf_counter() - started)
    return response


def _done(error=None):
    if request.environ.pop(STARTED, None) is not None:
        _metrics().in_progress.dec()


def auth_failure(reason):
    """auth.py: a key was refused for `reason`."""
    if current_app.config["METRICS"]:
        _metrics().auth_failures.labels(reason).inc()


class DatabaseCollector:
    """The gauges read from the database when scraped."""

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        try:
            size = db.database_size()
            counts = deliveries.count_by_outcome()
        except Exception:
            log.warning("metrics: the database does not answer", exc_info=True)
            return
        yield GaugeMetricFamily(
            "cps_database_size_bytes",
            "Size of the database: the SQLite file with its -wal file, or on PostgreSQL "
            "the service's tables with their indexes and TOAST.",
            value=size,
        )
        yield GaugeMetricFamily(
            "cps_outbox_backlog",
            "Webhook deliveries waiting to be sent (pending).",
            value=counts.get("pending", 0),
        )
        family = GaugeMetricFamily(
            "cps_webhook_deliveries",
            "Webhook deliveries in the delivery log, by outcome.",
            labels=["outcome"],
        )
        for outcome in OUTCOMES:
            family.add_metric([outcome], counts.get(outcome, 0))
        yield family


def exposition():
    """(body, content type) of a scrape: every worker's values, and the database's."""
    from prometheus_client import CollectorRegistry, generate_latest, multiprocess
    from prometheus_client.exposition import CONTENT_TYPE_LATEST

    directory = multiprocess_directory()
    if directory:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, directory)
        registry.register(DatabaseCollector())
    else:
        registry = current_app.extensions["metrics_registry"]
    return generate_latest(registry), CONTENT_TYPE_LATEST


def init_app(app):
    if not app.config["METRICS"]:
        return
    from prometheus_client import CollectorRegistry

    registry = app.extensions["metrics_registry"] = CollectorRegistry()
    if not multiprocess_directory():
        registry.register(DatabaseCollector())
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.after_request(_finish)
    app.teardown_request(_done)
