"""The Content Publishing Service (docs/layout.md has the whole map).

Where each rule lives:

    app.py          create_app: the settings, the store, the HTTP layer
    wsgi.py         what gunicorn serves
    settings.py     every FLASK_* setting and its check at start
    errors.py       the one error envelope and its codes
    timestamps.py   RFC 3339 in, UTC `Z` out
    logs.py         request ids, log formats, redaction of keys and secrets
    auth.py         API keys: headers, hashing, the scope decorator
    roles.py        what each member's role lets their keys do
    members.py      a workspace's members: invite, change, remove, an invitation taken up
    workspaces.py   the workspace's settings (approvals) and what a change of each does
    posts/          the post lifecycle: moves, writes, handoffs (claims, pushes, leases, the
                    service's own), bulk import
    planning/       channels, posting slots, the queue, the guards, recurring posts
    analytics/      stats snapshots, the analytics of a range, suggested slots, the CSV
    articles.py     the article lifecycle, and every article change with its event
    history.py      what a post's history records, and which action each change is
    idempotency.py  Idempotency-Key: a retried create gets the first record
    linkedin.py     the escaping LinkedIn needs of a text, and its length limits
    publish_plan.py the publish plan handed to automations: uploads, the post, the first comment
    preview.py      the preview of a post's plan, with its warnings
    connections.py  a channel's LinkedIn connection: the sign-in, sealed tokens, their lifetime
    linkedin_api.py LinkedIn's APIs as the service calls them: OAuth, pages, a plan's steps
    publisher.py    the service's own publisher, in the dispatcher process
    publish_run.py  one post's publish plan run by it: uploads, the post, the first comment
    collect_run.py  one post's figures read at LinkedIn by it, when their collection is due
    media.py        the media library: what an upload must be, its metadata stripped
    images.py       an upload decoded and written anew in a child process, with limits
    bounded.py      the child process with memory, CPU and time limits that images and PDFs use
    documents.py    a PDF of the library: checked by parsing it, written anew without metadata
    webhooks/       events, endpoint rules and the SSRF guard, secrets, sending
    notifications.py who hears of which event (email, the workspace's chat), queued with it
    notifier.py     sending notifications in the dispatcher process: SMTP, the chat webhook
    dispatcher.py   the dispatcher process: pushes due posts, works the outbox
    http/           the HTTP layer: a blueprint per endpoint group, the OpenAPI document
    serving/        access log, gunicorn worker, body cap, metrics
    cli/            the operator's commands (keys, webhooks, copy-db, backup, restore)
    schemas/        marshmallow: every body, record and query; what text and URLs are accepted
    store/          every SQL statement, on SQLite and PostgreSQL, and the transaction rule
    static/         the dashboard and the docs page's script

The HTTP layer's views load, open a transaction, call a function of the
domain (posts, planning, analytics, articles, history, idempotency, linkedin,
publish_plan, preview, media, webhooks' rules and events), and render.
"""

from pathlib import Path

STATIC = Path(__file__).parent / "static"
