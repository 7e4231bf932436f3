"""Serving: what sits between gunicorn and the views.

accesslog.py  gunicorn's access log, with keys redacted and request ids
worker.py     the gunicorn worker whose own errors (414, 431, ...) use the envelope
limits.py     the request body cap, chunked bodies included
metrics.py    the Prometheus series at /metrics (FLASK_METRICS=1)
"""
