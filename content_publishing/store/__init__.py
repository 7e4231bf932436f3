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
"""
