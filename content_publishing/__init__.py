"""The Content Publishing Service (docs/layout.md has the whole map).

What every feature uses, at the top:

    app.py          create_app: the settings, the store, the HTTP layer
    wsgi.py         what gunicorn serves
    settings.py     every FLASK_* setting, checked by one schema at start
    errors.py       the one error envelope and its codes
    timestamps.py   RFC 3339 in, UTC `Z` out
    logs.py         request ids, log formats, redaction of keys and secrets
    auth.py         API keys: headers, hashing, the scope decorator
    roles.py        what each member's role lets their keys do
    idempotency.py  Idempotency-Key: a retried create gets the first record
    outbound.py     the one outbound HTTP client, with its SSRF guard; how a network call failed
    sealing.py      encryption at rest of webhook secrets and OAuth tokens
    dispatcher.py   the dispatcher process: pushes due posts, works the outbox, runs the
                    publisher and the notifier
    articles.py     the article lifecycle, and every article change with its event

The features, each a package:

    posts/          the post lifecycle: moves, writes, handoffs (claims, pushes, leases, the
                    service's own), bulk import, recycling, approvals and reviews, history,
                    the publish plan and its preview
    planning/       posting slots, the queue, the guards, recurring posts, hashtag sets
    channels/       channels, and their connection to the network they publish on
    publisher/      the service's own publisher: one post's run, figures collected, tokens;
                    reaches a network only through its seam (publisher/network.py)
    linkedin/       LinkedIn: text rules, the API client, the sign-in, the plan builder
    media/          the media library: images and PDFs checked with bounded work
    workspaces/     members, invitations and the workspace's settings
    accounts/       people's accounts: passwords, sessions, sign-in links, the second factor
    notifications/  who hears of what (email, the workspace's chat), and sending it
    webhooks/       events, endpoint rules, secrets, one signed delivery
    analytics/      stats snapshots, the analytics of a range, suggested slots, the CSV
    mcp/            an MCP server for AI assistants: a client of the HTTP API, in a process
                    of its own (`pip install .[mcp]`); nothing of the service imports it

And the layers every feature goes through:

    http/           the HTTP layer: a blueprint per endpoint group, the OpenAPI document
    cli/            the operator's commands (keys, members, webhooks, copy-db, backup, restore),
                    and the container image's entrypoint
    schemas/        marshmallow: every body, record and query; what text and URLs are accepted
    store/          every SQL statement, on SQLite and PostgreSQL, and the transaction rule
    serving/        access log, gunicorn worker, body cap, metrics
    static/         the dashboard and the docs page's script

The HTTP layer's views load, open a transaction, call a function of a
feature, and render.
"""

from pathlib import Path

STATIC = Path(__file__).parent / "static"
