"""The data layer: every SQL statement of the service lives in this package.

Views, domain modules and the CLI call these functions with plain values
(ids, dicts, timestamps as text, `now` included) and get plain dicts back;
they never see a connection, a cursor or SQL.

The transaction rule, which every module here follows:

- Store functions never begin, commit or roll back. They run their
  statements on the calling thread's connection (`store.db`), inside
  whatever transaction the caller opened. No function takes an argument that
  names a connection.
- Callers choose the unit of work. Every write runs inside
  `with transaction():`, one per request or command, so a 2xx is sent only
  after the change has committed, and a failure anywhere leaves nothing
  half-done. Reads that run more than one statement and must agree with each
  other (a list page and its total) run inside `with snapshot():`. A read of
  one statement needs neither.
- Inside a transaction, a row that is read in order to be changed is read
  with a `lock_*` function, so that the read and the write cannot be overtaken
  by another writer.
- A statement whose result nobody reads (no RETURNING, no row count) is run
  with `db.write` or `db.execute_many`. On PostgreSQL it then waits and goes
  with the transaction's next statement or its commit, in one round trip; an
  error in it fails that statement, and the transaction rolls back whole.

The modules:

    db.py                the facade: connections, transactions, init_db, one/rows/value/write,
                         time_limit
    backend_sqlite.py    all that is SQLite's own (PRAGMAs, busy waits, search)
    backend_postgres.py  all that is PostgreSQL's own (pipelines, advisory locks, search)
    versions.py          the schema version this code runs: its newest migration's number
    migrate.py           which migrations a database needs (the files: migrations/<backend>/)
    keys.py              workspaces (as keys create --user makes them) and API keys
    members.py           a workspace's members, their invitations, a removed member's keys
    accounts.py          people's accounts, their members, sign-in links, failed sign-ins
    sessions.py          sessions: a signed-in browser, read afresh on every request
    workspaces.py        a workspace's settings (approvals) and the posts they concern
    comments.py          a post's comments
    key_cache.py         the keys a worker has seen, trusted while the key generation holds
    posts.py             posts, their handoffs and deletion
    search.py            search among one owner's posts: index-led or order-led, a time limit
    channels.py          channels and the planned posts the queue and guards read
    connections.py       channels' LinkedIn connections (tokens sealed) and sign-ins under way
    history.py           post history
    stats.py             stats snapshots, and each Published post's latest figures (post_metrics)
    analytics.py         the analytics' grouped reads of post_metrics
    stats_collections.py the posts whose figures the service still has to collect, by due time
    articles.py          articles
    hashtags.py          saved hashtag sets
    media.py             the media library's images
    idempotency.py       Idempotency-Key records of creates and imports
    webhooks.py          webhook endpoints
    sealed.py            every column sealed with the secrets key: any stored, all rewritten
    outbox.py            events, their deliveries and attempts
    notifications.py     the notification outbox, members' preferences, the workspace's chat
    deliveries.py        the delivery log a workspace reads and the metrics count
    records.py           reading and changing one owned row, and a page of them
    paging.py            a page of a workspace's rows plus its total
    copy.py              copy-db: an SQLite database into an empty PostgreSQL one
    backup/              backups and restores of the whole database
"""
