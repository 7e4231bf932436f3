"""The HTTP layer: HTTP only, one blueprint per endpoint group.

api.py        the `api` blueprint under /functions/v1, whose before_request authenticates; nests the groups
common.py     what every view shares: the JSON body, the query, If-Match, ETag, a page
apidoc.py     @doc(...): one declaration that loads a view's query and body and documents them
posts.py      posts: list, create, read, update, delete, claim, preview, history
planning.py   add to queue, recycle, bulk import
hashtags.py   saved hashtag sets
callback.py   the publish callback
stats.py      stats snapshots of published posts: record, read
analytics.py  the analytics of a range, as JSON and as CSV
articles.py   articles
channels.py   channels and their upcoming slots
connect.py    connecting a channel to LinkedIn: start, disconnect, and the callback (no key)
media.py      the media library: upload, list, serve
webhooks.py   webhook endpoints and the delivery log
me.py         GET /me: the calling key, or session (with its CSRF token)
session.py    signing in (no key: password, mailed links), signing out, a person's sessions
account.py    a person's account page (name, password, second factor), and one's own keys
cookies.py    requests by session cookie: the session's check, CSRF, the cookie itself
members.py    a workspace's members, and taking up an invitation (no key)
reviews.py    a post's review (submit, approve, request changes) and its comments
workspace.py  the workspace's settings: approvals, its chat webhook
health.py     GET /health, without a key
metrics.py    GET /metrics (FLASK_METRICS=1)
docs.py       the OpenAPI document and the docs page
dashboard.py  the dashboard's static files
"""
