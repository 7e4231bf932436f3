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
linkedin.py   connecting a channel to LinkedIn: start, disconnect, and the callback (no key)
media.py      the media library: upload, list, serve
webhooks.py   webhook endpoints and the delivery log
me.py         GET /me: the calling key
members.py    a workspace's members, and taking up an invitation (no key)
reviews.py    a post's review (submit, approve, request changes) and its comments
workspace.py  the workspace's settings: approvals, its chat webhook
health.py     GET /health, without a key
metrics.py    GET /metrics (FLASK_METRICS=1)
docs.py       the OpenAPI document and the docs page
dashboard.py  the dashboard's static files
"""
