"""Backup and restore of the PostgreSQL database (store/backup.py has the rules).

The service's tables live in one schema: the first schema of the
connection's search_path that exists (`public`, unless FLASK_DATABASE sets
`options=-csearch_path=...`). A backup is that schema alone.

Backup: pg_dump in custom format (-Fc) of that schema, inside a snapshot
exported by this command's own REPEATABLE READ transaction, in which the
schema version and the row counts are read too: the line printed describes
exactly what the archive holds.

Restore: pg_restore recreates objects only under the schema name in the
archive, while a restore may go into a schema of another name (a staging
copy, a fresh schema in the tests). So pg_restore first turns the archive
into SQL, which reads all of it, so a damaged archive is refused before
anything is touched; then psql runs that SQL between a prologue and an
epilogue as one transaction (--single-transaction, ON_ERROR_STOP), and any
error rolls all of it back:

- prologue: take init-db's advisory lock (a worker starting now waits for
  the restore), refuse if a service connection to the target schema has
  appeared, drop our tables and functions in the target schema;
- when the archive's schema has another name: set aside a schema of that
  name if there is one, create it empty, restore into it, move every table
  (with its indexes, triggers and identity sequences) and function to the
  target schema, drop the emptied schema (which fails if anything was left
  behind) and put back the one set aside.

Objects are restored without the archive's owners and grants (--no-owner
--no-acl): they belong to the user FLASK_DATABASE connects as, so restore
runs with the service's own FLASK_DATABASE.

"The service holds the database": its connections carry the
application_name `content-publishing:<schema>` (store/backend_postgres.py),
so pg_stat_activity shows them.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from content_publishing.store.backend_postgres import APPLICATION_NAME, CONNECT_TIMEOUT, INIT_LOCK
from content_publishing.store.backup.common import (
    COUNTED,
    BackupError,
    Summary,
    check_output,
    check_schema,
    install,
    known_tables,
    new_private_file,
    os_error,
    remove,
    temp_beside,
)

HELD_GRACE_SECONDS = 1.0  # a connection just closed leaves pg_stat_activity a moment later
LOCK_TIMEOUT = "10s"
SERVICE_CONNECTIONS = sql.SQL(
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    " AND pid <> pg_backend_pid() AND application_name = left({} || ':' || {}, 63)"
)


def backup(config, path, force):
    url = config["DATABASE"]
    check_output(path, force)
    pg_dump = _tool("pg_dump")
    conninfo, env = _libpq(url)
    temp = temp_beside(path)
    try:
        new_private_file(temp)  # pg_dump writes into it, keeping its mode
        with _connect(url) as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
            schema = conn.execute(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.oid = to_regclass('schema_version')"
            ).fetchone()[0]
            summary = Summary(path, _version(conn, schema), _counts(conn, schema), schema)
            _run(
                [
                    pg_dump,
                    "--format=custom",
                    f"--file={temp}",
                    f"--schema={_pattern(schema)}",
                    f"--snapshot={snapshot}",
                    f"--dbname={conninfo}",
                ],
                env,
                "pg_dump failed",
            )
            conn.execute("ROLLBACK")
        install(temp, path)
    except psycopg.Error as e:
        raise BackupError(f"backup failed ({_first_line(e)})") from None
    except OSError as e:
        raise os_error("write", path, e) from None
    finally:
        remove(temp)
    return summary


def restore(config, path):
    url = config["DATABASE"]
    pg_restore, psql = _tool("pg_restore"), _tool("psql")
    conninfo, env = _libpq(url)
    toc = _run([pg_restore, "--list", str(path)], env, f"{path} is not a readable pg_dump archive")
    tables, functions, source = _contents(toc, path)
    check_schema(path, _archived_version(pg_restore, env, path, source), tables)
    with tempfile.TemporaryDirectory(prefix="cps-restore-") as work:
        work = Path(work)
        listing, script = work / "toc.list", work / "restore.sql"
        listing.write_text(_without_schema_entries(toc))
        _run(
            [
                pg_restore,
                "--no-owner",
                "--no-acl",
                f"--use-list={listing}",
                f"--file={script}",
                str(path),
            ],
            env,
            f"{path} is damaged",
        )
        try:
            with _connect(url) as conn:
                target = _target_schema(conn)
                prologue, epilogue = _wrapping(conn, target, source, tables, functions)
        except psycopg.Error as e:
            raise BackupError(f"cannot prepare the restore ({_first_line(e)})") from None
        (work / "prologue.sql").write_text(prologue)
        (work / "epilogue.sql").write_text(epilogue)
        _run(
            [
                psql,
                "--no-psqlrc",
                "--quiet",
                "--set=ON_ERROR_STOP=1",
                "--single-transaction",
                f"--file={work / 'prologue.sql'}",
                f"--file={script}",
                f"--file={work / 'epilogue.sql'}",
                f"--dbname={conninfo}",
            ],
            env,
            "restore failed, nothing was changed",
        )
    with _connect(url) as conn:
        return Summary(path, _version(conn, target), _counts(conn, target), target)


# --- restore, step by step ----------------------------------------------------------------


def _contents(toc, path):
    """(tables, functions, schema) of an archive's table of contents;
    refused unless everything is in one schema."""
    tables, functions, schemas = set(), set(), set()
    for entry in _entries(toc):
        if m := re.fullmatch(r"TABLE (\S+) (\S+) \S+", entry):
            schemas.add(m[1])
            tables.add(m[2])
        elif m := re.fullmatch(r"FUNCTION (\S+) (\S+\(.*\)) \S+", entry):
            schemas.add(m[1])
            functions.add(m[2])
    if len(schemas) != 1:
        raise BackupError(
            f"{path} is not a backup of this service's database"
            f" (its tables are in {len(schemas)} schemas, not one)"
        )
    return tables, functions, schemas.pop()


def _entries(toc):
    """Each line of `pg_restore --list` after its ids: "TABLE schema name owner"."""
    for line in toc.splitlines():
        if m := re.match(r"\s*\d+;\s+\d+\s+\d+\s+(.*\S)", line):
            yield m[1]


def _without_schema_entries(toc):
    """The list with CREATE SCHEMA and its comment left out: the prologue
    provides the schema the objects are restored into."""
    lines = []
    for line in toc.splitlines():
        entry = next(_entries(line), "")
        dropped = entry.startswith(("SCHEMA - ", "COMMENT - SCHEMA "))
        lines.append(f";{line}" if dropped else line)
    return "\n".join(lines) + "\n"


def _archived_version(pg_restore, env, path, schema):
    """The schema_version row in the archive, 0 if there is none."""
    data = _run(
        [pg_restore, "--data-only", f"--schema={schema}", "--table=schema_version", "--file=-"]
        + [str(path)],
        env,
        f"{path} is damaged",
    )
    versions, inside = [], False
    for line in data.splitlines():
        if line.startswith("COPY "):
            inside = True
        elif line == "\\.":
            inside = False
        elif inside and line.strip().isdigit():
            versions.append(int(line))
    return max(versions, default=0)


def _target_schema(conn):
    target = conn.execute("SELECT current_schema()").fetchone()[0]
    if target is None:
        raise BackupError(
            "no schema of FLASK_DATABASE's search_path exists; create it, then restore"
        )
    deadline = time.monotonic() + HELD_GRACE_SECONDS
    while conn.execute(SERVICE_CONNECTIONS.format(APPLICATION_NAME, target)).fetchone()[0]:
        if time.monotonic() > deadline:
            raise BackupError(
                f"the service is connected to schema {target}; stop it (gunicorn and the"
                " dispatcher) before a restore"
            )
        time.sleep(0.1)
    present = {
        row[0]
        for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (target,))
    }
    foreign = sorted(present - known_tables())
    if foreign:
        raise BackupError(
            f"schema {target} holds tables that are not this service's"
            f" ({', '.join(foreign[:5])}); it is left alone"
        )
    return target


def _wrapping(conn, target, source, tables, functions):
    """The SQL run before and after the restored objects, in the same transaction."""
    dst, src = sql.Identifier(target), sql.Identifier(source)
    before = [
        sql.SQL("SET client_min_messages = warning"),
        sql.SQL("SET lock_timeout = {}").format(LOCK_TIMEOUT),
        sql.SQL("SELECT pg_advisory_xact_lock({}, hashtext({}))").format(INIT_LOCK, target),
        sql.SQL(
            "DO $$ BEGIN IF ({}) > 0 THEN RAISE EXCEPTION"
            " 'the service is connected to schema %', {}; END IF; END $$"
        ).format(SERVICE_CONNECTIONS.format(APPLICATION_NAME, target), target),
    ]
    for (table,) in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s", (target,)
    ).fetchall():
        before.append(
            sql.SQL("DROP TABLE IF EXISTS {}.{} CASCADE").format(dst, sql.Identifier(table))
        )
    names = sorted({f.split("(")[0] for f in functions})
    for (signature,) in conn.execute(
        "SELECT format('%%I.%%I(%%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))"
        " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname = %s AND p.proname = ANY(%s)",
        (target, names),
    ).fetchall():
        before.append(sql.SQL("DROP FUNCTION IF EXISTS {} CASCADE").format(sql.SQL(signature)))
    after = []
    if source != target:
        aside = sql.Identifier(f"cps_restore_{uuid.uuid4().hex[:12]}")
        taken = conn.execute("SELECT to_regnamespace(%s) IS NOT NULL", (_pattern(source),))
        set_aside = taken.fetchone()[0]
        if set_aside:
            before.append(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(src, aside))
        before.append(sql.SQL("CREATE SCHEMA {}").format(src))
        after.append(sql.SQL("SET lock_timeout = {}").format(LOCK_TIMEOUT))
        for table in sorted(tables):
            after.append(
                sql.SQL("ALTER TABLE {}.{} SET SCHEMA {}").format(src, sql.Identifier(table), dst)
            )
        for function in sorted(functions):
            name, args = function.split("(", 1)
            after.append(
                sql.SQL("ALTER FUNCTION {}.{}({} SET SCHEMA {}").format(
                    src, sql.Identifier(name), sql.SQL(args), dst
                )
            )
        after.append(sql.SQL("DROP SCHEMA {}").format(src))  # fails if anything was left in it
        if set_aside:
            after.append(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(aside, src))
    return _script(conn, before), _script(conn, after)


def _script(conn, statements):
    return "".join(f"{s.as_string(conn)};\n" for s in statements)


# --- helpers ------------------------------------------------------------------------------


def _connect(url):
    return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)


def _version(conn, schema):
    return conn.execute(
        sql.SQL("SELECT coalesce(max(version), 0) FROM {}.schema_version").format(
            sql.Identifier(schema)
        )
    ).fetchone()[0]


def _counts(conn, schema):
    counts = {}
    for table in COUNTED:
        name = sql.Identifier(schema, table)
        if conn.execute("SELECT to_regclass(%s)", (name.as_string(conn),)).fetchone()[0]:
            counts[table] = conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(name)
            ).fetchone()[0]
    return counts


def _pattern(schema):
    """pg_dump's --schema takes a pattern: quoted, the name is taken as it is."""
    return '"' + schema.replace('"', '""') + '"'


def _libpq(url):
    """FLASK_DATABASE as a libpq connection string for the client programs,
    and their environment: the password goes in PGPASSWORD, never on a
    command line that `ps` shows."""
    params = conninfo_to_dict(url)
    password = params.pop("password", None)
    env = dict(os.environ)
    if password:
        env["PGPASSWORD"] = password
    return make_conninfo("", **params), env


def _tool(name):
    found = shutil.which(name)
    if not found:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client programs"
            " (Debian: postgresql-client), of the server's major version or newer"
        )
    return found


def _run(argv, env, failure):
    """Run a client program; its output, or a BackupError: `failure` and its first error."""
    try:
        result = subprocess.run(
            argv, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
    except OSError as e:
        raise BackupError(f"{failure} ({e.strerror})") from None
    if result.returncode != 0:
        raise BackupError(f"{failure} ({_error_line(result.stderr)})")
    return result.stdout


def _error_line(stderr):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        for marker in ("ERROR:", "error:", "FATAL:"):
            if marker in line:
                return line.split(marker, 1)[1].strip()
    return lines[0] if lines else "no message"


def _first_line(error):
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
