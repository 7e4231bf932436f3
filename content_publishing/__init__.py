"""The Content Publishing Service (docs/layout.md has the whole map).

Where each rule lives:

    app.py, wsgi.py     create_app, and what gunicorn serves
    settings.py         every FLASK_* setting and its check at start
    posts.py            the post lifecycle: moves, claims, leases, and every post change with its event
    articles.py         the article lifecycle, and every article change with its event
    idempotency.py      Idempotency-Key: a retried create gets the first record
    auth.py             API keys: headers, hashing, the scope decorator
    errors.py           the one error envelope and its codes
    timestamps.py       RFC 3339 in, UTC `Z` out
    logs.py             request ids, log formats, redaction of keys and secrets
    webhooks/           events, endpoint rules and the SSRF guard, secrets, sending, the dispatcher
    serving/            access log, gunicorn worker, body cap, metrics
    cli/                the operator's commands (keys, webhooks, copy-db, backup, restore)
    schemas/            marshmallow: every body, record and query; what text and URLs are accepted
    store/              every SQL statement, on SQLite and PostgreSQL, and the transaction rule
    static/             the dashboard and the docs page's script

The HTTP layer is `blueprints/` beside this package: views load, open a
transaction, call a function here, and render.
"""

from pathlib import Path

STATIC = Path(__file__).parent / "static"
