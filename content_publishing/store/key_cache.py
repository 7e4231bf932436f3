"""The keys a worker has seen, so that a request need not look its key up.

A cached key is trusted only while the key generation (the migration
0008_key_generation) is still the one it was read at. Every change of a key
bumps that number by trigger, in the change's own transaction, and every
request that uses a cached key reads the number with its first statement
(db.check_key_generation);
if it moved, the key is looked up again before that statement's result is
used. So `keys revoke` takes effect for every worker's next request, exactly
as without a cache; what the cache saves is the lookup itself (on
PostgreSQL, a round trip: the number rides in the request's first one).

Only usable keys are kept, each with the generation it was read at. Expiry
is judged against the clock on every request, cached or not. A worker starts
with an empty cache, so a restored database is never judged by records read
from another.
"""

LIMIT = 10_000  # keys a worker remembers; past it, it starts over


class KeyCache:
    def __init__(self):
        self._records = {}

    def get(self, key_hash):
        """The record read for this key and the generation it was read at, or None."""
        return self._records.get(key_hash)

    def remember(self, key_hash, record):
        """Keep a usable key's record (store/keys.find_key: it carries its
        generation; without one, as on a table the schema has not made yet,
        nothing is kept)."""
        if record.get("generation") is None:
            return
        if len(self._records) >= LIMIT:
            self._records = {}
        self._records[key_hash] = record

    def forget(self, key_hash):
        self._records.pop(key_hash, None)
