"""The ceiling of this stack: a bare Flask app answering a small JSON object.

bench/run.py serves it with the service's own gunicorn.conf.py (same workers,
worker class and settings) so that the service's throughput can be given as a
fraction of what Flask + gunicorn reach on this machine at all.

    gunicorn -c gunicorn.conf.py bench.ceiling_app:app
"""

from flask import Flask

app = Flask(__name__)


@app.get("/")
def index():
    return {"id": "6f1c1f0e-6a57-4d0e-9a4b-2f4a8f9d3c21", "status": "Draft", "version": 1}


@app.get("/health")
def health():  # harness.Gunicorn waits for /health before a run
    return {"status": "ok"}
