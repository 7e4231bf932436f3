"""Seed bench databases through the service's own store code.

Rows go in with store.posts.insert_post / update_post inside
`with app.app_context(): with transaction():` (one transaction per
BATCH rows), users and keys with store.keys.create_key: the rows are exactly
what the service itself writes, triggers (content_counts) included. The seeding
connection runs with synchronous=OFF, a setting of the service's own
connect(): a seed that dies half-way is thrown away, never cached.

The growth database (1,000,000 posts) is cached in bench/.cache/, keyed by the
SHA-256 of the SQLite migrations, and copied for each run so that the cache itself is
never written by the service.

Every call into the application's store is in the three functions under
"store calls" below, so a change of the store's API is adapted there only.
"""

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from flask import current_app

from content_publishing import auth, timestamps
from content_publishing.app import create_app
from content_publishing.store import keys as key_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import backend, dispose_db, get_db, init_db, transaction
from harness import ROOT, postgres

CACHE = Path(__file__).resolve().parent / ".cache"
# Rows per transaction. Not more: on PostgreSQL every change of one
# content_counts row inside a transaction steps over the versions the
# transaction left before it, so a batch costs time in its square.
BATCH = 1_000
CALLER = "bench"


# Bumped when what seed_growth writes changes, so that a cached database is
# made again (3: the word "evergreen" in the first 200 posts, for the search run).
SEED_VERSION = "3"


def schema_hash():
    """Of the SQLite migrations and SEED_VERSION: the key of the cached growth databases."""
    files = sorted((ROOT / "content_publishing" / "store" / "migrations" / "sqlite").glob("*.sql"))
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files) + SEED_VERSION.encode())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------- store calls


@contextlib.contextmanager
def _seeding(path, cache_mib=None):
    """An app context on a new database at `path` (schema applied), with
    synchronous=OFF; the connection is closed on exit."""
    app = create_app({"DATABASE": str(path), "SQLITE_SYNCHRONOUS": "OFF"})
    with app.app_context():
        init_db()
        if cache_mib and backend().name == "sqlite":
            get_db().execute(f"PRAGMA cache_size = -{int(cache_mib) * 1024}")
        try:
            yield
        finally:
            dispose_db()


def _fresh_statistics():
    """On PostgreSQL, planner statistics of the rows so far, as autovacuum
    would gather them (where it is on): the seeding connection's prepared
    statements were planned on an empty table, and without new statistics
    they stay so, each lookup getting slower as the table grows."""
    if backend().name == "postgresql":
        postgres.analyze(current_app.config["DATABASE"])


def _user(name):
    """The user's id, creating the user through store.keys.create_key.

    The store has no bare "create user"; keys create users. The key made here
    is revoked at once: runs make their own key with `flask keys create`.
    """
    key = auth.generate_key()
    now = timestamps.now_text()
    with transaction():
        key_id = key_store.create_key(
            name, auth.hash_key(key), auth.display_prefix(key), list(auth.SCOPES), None, now
        )
        key_store.revoke_key(now, key_id=key_id)
    return key_store.find_key(auth.hash_key(key))["workspace_id"]


def _insert_many(
    owners, content, start, step_us, status_for=None, progress=None, scheduled_at=None
):
    """Insert len(owners) posts, post i owned by owners[i], created at
    start + i*step_us (so every owner's posts interleave in time).

    Returns the ids in insertion order. `status_for(i)` may return
    "Scheduled": the post then gets a scheduled_at a day ahead and is moved
    with update_post, as the service's PATCH would; or "Due": the same with a
    scheduled_at in the past, so that a claim takes it at once.
    """
    ids = []
    total = len(owners)
    done = 0
    t0 = time.monotonic()
    when = {
        "Scheduled": timestamps.to_text(timestamps.now() + timedelta(days=1)),
        "Due": timestamps.to_text(timestamps.now() - timedelta(days=1)),
    }
    if scheduled_at is not None:
        when = {"Scheduled": scheduled_at, "Due": scheduled_at}
    while done < total:
        end = min(done + BATCH, total)
        with transaction():
            for i in range(done, end):
                post_id = str(uuid.uuid4())
                now = timestamps.to_text(start + timedelta(microseconds=i * step_us))
                status = status_for(i) if status_for is not None else "Draft"
                fields = {
                    "type": "personal",
                    "brand_id": None,
                    "content": content(i),
                    "media_urls": [],
                    "scheduled_at": when.get(status),
                }
                post_store.insert_post(owners[i], post_id, fields, now)
                if status in when:
                    post_store.update_post(owners[i], post_id, {"status": "Scheduled"}, now)
                ids.append(post_id)
        done = end
        if done % (BATCH * 10) == 0:
            _fresh_statistics()
        if progress and (done % (BATCH * 100) == 0 or done == total):
            rate = done / max(time.monotonic() - t0, 1e-9)
            progress(f"  seeded {done:,}/{total:,} posts ({rate:,.0f}/s)")
    return ids


# ---------------------------------------------------------------- databases


def seed_main(path, drafts, scheduled, progress=print, status="Scheduled", scheduled_at=None):
    """The scenario database: `drafts` Draft posts and `scheduled` Scheduled
    posts of user CALLER, a day ahead (status="Due": a day ago; or at
    `scheduled_at`). Returns {"drafts": [ids], "scheduled": [ids]}."""
    with _seeding(path):
        uid = _user(CALLER)
        start = timestamps.now() - timedelta(days=30)
        n = drafts + scheduled
        # Scheduled posts are the last `scheduled` ones.
        ids = _insert_many(
            [uid] * n,
            lambda i: f"Bench post {i}: notes on shipping small services, with numbers.",
            start,
            1000,
            status_for=lambda i: status if i >= drafts else "Draft",
            progress=progress,
            scheduled_at=scheduled_at,
        )
    return {"drafts": ids[:drafts], "scheduled": ids[drafts:]}


def seed_growth(path, total, users=10, sample=2000, progress=print):
    """`total` posts spread round-robin over `users` users; the caller owns
    1/users of them. Returns {"caller_ids": sample of the caller's ids}."""
    with _seeding(path, cache_mib=256):  # a large page cache for the seed only
        uids = [_user(CALLER)] + [_user(f"bench-other-{k}") for k in range(1, users)]
        owners = [uids[i % users] for i in range(total)]
        start = timestamps.now() - timedelta(days=365)
        step = max(1, int(365 * 86400 * 1e6 // total))
        ids = _insert_many(
            owners,
            lambda i: (
                f"Growth post {i}: a paragraph about the week's launch and what we "
                f"learned{' (evergreen)' if i < 200 else ''}."
            ),
            start,
            step,
            progress=progress,
        )
    caller_ids = ids[0::users]
    stride = max(1, len(caller_ids) // sample)
    return {"caller_ids": caller_ids[::stride][:sample], "caller_posts": len(caller_ids)}


def growth_db(total, workdir, progress=print, cache=True):
    """A private copy of the growth database with `total` posts, seeded once
    and cached in bench/.cache/ (keyed by the SQLite migrations' hash). Returns
    (path, meta). cache=False seeds straight into `workdir` (smoke runs)."""
    return cached_db(
        f"growth-{schema_hash()}-{total}",
        f"the {total:,}-post growth database",
        lambda path: seed_growth(path, total, progress=progress),
        workdir,
        progress,
        cache,
    )


def cached_db(name, what, make, workdir, progress=print, cache=True):
    """(path, meta) of a private copy of the database `make(path)` seeds
    (returning its meta), made once and cached in bench/.cache/ as `name`
    (older versions of the same kind, `name` up to its last dash, are
    removed). cache=False seeds a new file in `workdir`."""
    if not cache:  # a file of its own: `--backend both` asks twice
        fd, path = tempfile.mkstemp(prefix=f"{name}-", suffix=".sqlite", dir=workdir)
        os.close(fd)
        os.unlink(path)
        return Path(path), make(path)
    CACHE.mkdir(exist_ok=True)
    cached, meta_file = CACHE / f"{name}.sqlite", CACHE / f"{name}.json"
    if not (cached.exists() and meta_file.exists()):
        kind, _, _ = name.partition("-")
        size = name.rsplit("-", 1)[-1]
        for old in CACHE.glob(f"{kind}-*-{size}.*"):
            old.unlink()  # an older schema's cache
        partial = CACHE / f"{name}.partial.sqlite"
        for p in CACHE.glob(f"{name}.partial.sqlite*"):
            p.unlink()
        progress(f"seeding {what} (cached in {CACHE})")
        t0 = time.monotonic()
        meta = make(partial)
        meta["seed_seconds"] = round(time.monotonic() - t0, 1)
        for suffix in ("-wal", "-shm"):
            if Path(str(partial) + suffix).exists():
                raise RuntimeError(f"seed left {partial}{suffix} behind")
        os.replace(partial, cached)
        meta_file.write_text(json.dumps(meta))
    else:
        progress(f"using the cached {what} {cached.name}")
    meta = json.loads(meta_file.read_text())
    # A copy of its own for each call: `--backend both` asks twice, and the
    # first copy is a live database by then (a key added, a WAL beside it).
    fd, copy = tempfile.mkstemp(prefix=f"{name}-", suffix=".sqlite", dir=workdir)
    os.close(fd)
    shutil.copyfile(cached, copy)
    return Path(copy), meta


# ---------------------------------------------------------------- search (bench/search.py)

SEARCHER, QUIET, READER = "bench-searcher", "bench-quiet", "bench-reader"
SEARCH_WORDS = "the launch"


def seed_search(path, broad, quiet, reader, progress=print):
    """`broad` posts of SEARCHER, each holding SEARCH_WORDS; between them,
    `quiet` posts of QUIET and `reader` posts of READER, neither holding
    either word. Returns {"reader_ids": [...], "quiet_posts": ...}."""
    with _seeding(path, cache_mib=256):
        searcher, quiet_id, reader_id = _user(SEARCHER), _user(QUIET), _user(READER)
        total = broad + quiet + reader
        owners = [searcher] * total
        for n, i in enumerate(range(0, total, max(1, total // max(1, quiet + reader)))):
            if n < quiet + reader:
                owners[i] = quiet_id if n < quiet else reader_id
        texts = {
            searcher: "Launch notes {}: the launch of the week, and what we learned.",
            quiet_id: "Quiet post {}: notes from a week.",
            reader_id: "Reader post {}: a paragraph to read.",
        }
        ids = _insert_many(
            owners,
            lambda i: texts[owners[i]].format(i),
            timestamps.now() - timedelta(days=100),
            1000,
            progress=progress,
        )
    mine = [post_id for post_id, owner in zip(ids, owners, strict=True) if owner == reader_id]
    counts = {owner: owners.count(owner) for owner in (searcher, quiet_id, reader_id)}
    return {
        "reader_ids": mine,
        "broad": counts[searcher],
        "quiet_posts": counts[quiet_id],
        "reader_posts": counts[reader_id],
    }


def search_db(broad, quiet, reader, workdir, progress=print, cache=True):
    """(path, meta) of a copy of the search database, cached like growth_db."""
    return cached_db(
        f"search-{schema_hash()}-{broad}",
        f"the search database ({broad:,} posts holding {SEARCH_WORDS!r})",
        lambda path: seed_search(path, broad, quiet, reader, progress=progress),
        workdir,
        progress,
        cache,
    )
