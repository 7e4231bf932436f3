"""Step 5: databases the service cannot use; gunicorn must refuse to start.

A database in a missing directory, a file that is not a database, a
read-only directory (with and without a database) and a read-only file; a
PostgreSQL URL that does not parse, a server that does not answer, a
database that does not exist and a schema newer than the code: gunicorn exits 1 with exactly one `error: cannot start: ...` line naming
the problem, and no traceback. Two extra cases (an SQLite header over a
corrupt file, a schema newer than the code) are reported, and counted only
with --strict.
"""

import contextlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from faults.report import Step, log
from harness import Gunicorn, init_database, postgres
from harness.sqlite_direct import set_schema_version

START_TIMEOUT = 30  # a refused start takes about a second
SIDE_BY_SIDE = 4  # starts at once: each waits mostly on gunicorn's imports


def run(args, tmp):
    st = Step("5 badstart")
    log(
        "\n[5] bad starts: gunicorn must refuse with one `error: cannot start: ...` line and exit 1"
    )
    base = tmp / "badstart"
    base.mkdir()
    junk = base / "junk.sqlite"
    junk.write_bytes(b"this is not an SQLite database\n" * 100)
    try_cases(st, args, cases(base, junk))
    st.check(
        junk.read_bytes().startswith(b"this is not"), "the non-database file was left untouched"
    )
    problem = postgres.reachable()
    if problem:
        st.check(False, f"PostgreSQL at {postgres.base_url()} is reachable ({problem})")
        return st
    with postgres.fresh_database(prefix="badstart") as url:
        postgres.set_schema_version(init_database(url), 999)
        try_cases(st, args, [(*case, None) for case in postgres_cases(url)])
    return st


def postgres_cases(newer):
    """(label, FLASK_DATABASE, text the error line must contain) on the second backend."""
    server = postgres.base_url().rsplit("/", 1)[0]
    return [
        ("PostgreSQL URL that does not parse", "postgresql://[::1/test", "not a usable"),
        ("PostgreSQL server that does not answer", "postgresql://127.0.0.1:1/x", "cannot reach"),
        ("PostgreSQL database that does not exist", f"{server}/no_such_db", "does not exist"),
        ("PostgreSQL schema newer than the code (version 999)", newer, "newer than this code"),
    ]


def cases(base, junk):
    """(label, database, text the error line must contain, path to make read-only or None)."""
    ro_empty = base / "ro-empty"
    ro_full = base / "ro-with-db"  # a directory that holds a database
    ro_file = base / "ro-file" / "db.sqlite"
    newer = base / "newer" / "db.sqlite"
    databases = (ro_full / "db.sqlite", ro_file, newer)
    for database in databases:
        database.parent.mkdir()
    with ThreadPoolExecutor(3) as pool:  # each is a `flask` process: side by side
        list(pool.map(init_database, databases))
    set_schema_version(newer, 999)
    corrupt = base / "corrupt.sqlite"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    return [
        ("missing directory", base / "no" / "such" / "dir" / "db.sqlite", "does not exist", None),
        ("file that is not a database", junk, "not an SQLite database", None),
        ("read-only directory (no database yet)", ro_empty / "db.sqlite", "not writable", ro_empty),
        ("read-only directory holding a database", ro_full / "db.sqlite", "not writable", ro_full),
        ("read-only database file", ro_file, "not readable and writable", ro_file),
        ("extra: SQLite header over a corrupt file", corrupt, "", None),
        ("extra: schema newer than the code (user_version 999)", newer, "", None),
    ]


def try_cases(st, args, cases):
    """Start every case side by side, then report them in order."""
    with ThreadPoolExecutor(SIDE_BY_SIDE) as pool:
        started = list(pool.map(lambda case: start(case[1], case[3]), cases))
    for (label, _, expect, _), (how, result) in zip(cases, started, strict=True):
        report_case(st, args, label, expect, how, result)


def start(database, read_only_path):
    """(how the path was made read-only, or "-"; gunicorn's result), or (None, None)."""
    with read_only(read_only_path) if read_only_path else contextlib.nullcontext("-") as how:
        if how is None:
            return None, None
        return how, Gunicorn(database, workers=2).run_to_exit(START_TIMEOUT)


def report_case(st, args, label, expect, how, result):
    if how is None:
        st.figure(
            f"{label}: cannot be made read-only for root here (no chattr, no bind mount): NOT TESTED"
        )
        return
    lines = result.error_lines()
    ok = (
        result.code == 1
        and len(lines) == 1
        and lines[0].startswith("error: cannot start: ")
        and expect in lines[0]
        and "Traceback" not in result.stderr
    )
    detail = f"exit {result.code} in {result.seconds:.1f} s; stderr error line: {lines}"
    if not lines:
        err = result.stderr.strip().splitlines()
        detail += f"; {len(err)} stderr lines, {result.stderr.count('Traceback')} tracebacks, last: {err[-1:]}"
    st.figure(f"{label}{'' if how == '-' else f' ({how})'}: {detail}")
    text = f"{label}: exit 1 with one line `error: cannot start: ...`" + (
        f" naming the problem ({expect!r})" if expect else ""
    )
    if label.startswith("extra:") and not args.strict:
        st.warn(ok, text)
    else:
        st.check(ok, text)


@contextlib.contextmanager
def read_only(path):
    """Make the directory or file `path` unwritable even for root; yields how,
    or None if no way works here (a directory is created if missing).

    Root ignores permission bits, so: chattr +i (an immutable directory refuses
    new files, an immutable file refuses writes, to everyone), else a read-only
    bind mount; chmod when not root."""
    if not path.exists():
        path.mkdir(parents=True)
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield "chmod (not root)"
        finally:
            path.chmod(mode)
        return
    if (
        shutil.which("chattr")
        and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    ):
        try:
            yield "chattr +i"
        finally:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        return
    bind = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(path), str(path)], capture_output=True
    )
    if bind.returncode == 0:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], capture_output=True)
        try:
            yield "read-only bind mount"
        finally:
            subprocess.run(["umount", str(path)], capture_output=True)
        return
    yield None
