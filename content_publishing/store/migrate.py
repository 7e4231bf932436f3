"""Schema changes as numbered migrations: which files a database needs.

Each backend has its folder, migrations/sqlite/ and migrations/postgresql/:

- `NNNN_<what>.sql` takes a database from schema version NNNN-1 to NNNN;
- `NNNN_baseline.sql` makes an empty database whole at version NNNN.

A new database gets the newest baseline and then every step after it; a
database at version N gets the steps after N. The current schema is these
files applied: nothing else holds a copy of it, and tests/test_migrations.py
proves that an old database brought forward equals a new one. A file is
never edited once released; a change is a new file (docs/layout.md,
"Changing the schema").

The backends apply what `plan` returns (backend_sqlite.py,
backend_postgres.py: `migrate`): every step in one transaction, the version
written after each step in that same transaction, under the lock that makes
workers starting together migrate once. So an upgrade that fails leaves the
database as the previous release left it.
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from content_publishing.store.versions import (
    MIGRATIONS,
    SCHEMA_VERSION,
    MigrationError,
    SchemaTooNew,
)

FILE_NAME = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
CREATED_TABLE = re.compile(
    r"^(?:CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?|ALTER TABLE \w+ RENAME TO )(\w+)", re.M
)  # a table made, or a table renamed (its new name)


@dataclass(frozen=True)
class Migration:
    version: int  # the schema version the database is at after it
    path: Path

    @property
    def name(self):
        return self.path.name

    @property
    def baseline(self):
        return self.path.stem.endswith("_baseline")

    @property
    def sql(self):
        return self.path.read_text()


@functools.cache
def migrations(backend):
    """Every migration of `backend` ("sqlite" or "postgresql"), in order."""
    found = []
    for path in sorted((MIGRATIONS / backend).glob("*.sql")):
        match = FILE_NAME.fullmatch(path.name)
        if not match:
            raise MigrationError(f"{path}: a migration is named NNNN_<what>.sql")
        found.append(Migration(int(match[1]), path))
    return tuple(found)


def plan(backend, found, present=(), target=SCHEMA_VERSION):
    """The migrations that bring a database of `backend` from version `found`
    to `target`, in order. `present`: the service's tables the database holds
    (asked only at version 0, where there must be none)."""
    if found > target:
        raise SchemaTooNew(found, target)
    steps = [m for m in migrations(backend) if not m.baseline]
    if found == 0:
        if present:
            raise MigrationError(
                f"the database has no schema version but holds tables of this service"
                f" ({', '.join(sorted(present)[:3])}): it was not made by init-db, so no"
                " migration can know its shape"
            )
        baselines = [m for m in migrations(backend) if m.baseline and m.version <= target]
        if not baselines:
            raise MigrationError(f"no baseline migration for {backend} up to version {target}")
        start = [baselines[-1]]
        found = baselines[-1].version
    else:
        start = []
    chosen = [m for m in steps if found < m.version <= target]
    expected = list(range(found + 1, target + 1))
    if [m.version for m in chosen] != expected:
        missing = sorted(set(expected) - {m.version for m in chosen})
        raise MigrationError(
            f"no {backend} migration to schema version {missing[0] if missing else '?'}"
            f" (from {found}): its file in store/migrations/{backend}/ is missing or doubled"
        )
    return start + chosen


def tables(backend=None):
    """The names of the tables the migrations of `backend` (or of both) create."""
    backends = [backend] if backend else ["sqlite", "postgresql"]
    return {name for b in backends for m in migrations(b) for name in CREATED_TABLE.findall(m.sql)}
