"""marshmallow schemas: what each endpoint accepts and returns.

The views load requests and dump records with these instances, and the
OpenAPI document is generated from the same ones.

    common.py      shared fields, the error envelope, cursors, render
    text.py        what text is accepted (Unicode rules)
    urls.py        what URLs are accepted
    media_refs.py  how a post names library media (kept by id, shown at the current address)
    posts.py       posts: record, create, update, list query, claim, callback
    imports.py     bulk import rows (CSV and JSON)
    recurrence.py  a post's repeat rule
    forecast.py    the coming occurrences of recurring posts over a range
    stats.py       stats snapshots: the batch, each item's result, a post's stats
    analytics.py   the analytics query and answer
    publish_plan.py the publish plan (linkedin_request) and the preview
    channels.py    channels and their slots
    hashtags.py    saved hashtag sets
    articles.py    articles
    media.py       media library items
    webhooks.py    webhook endpoints and deliveries
    keys.py        GET /me
    members.py     a workspace's members, invitations
    accounts.py    signing in, links, sessions, the account and its second factor
    reviews.py     a post's review action and its comments
    workspace.py   the workspace's record and settings
"""
