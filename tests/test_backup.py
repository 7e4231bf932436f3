"""`flask --app app backup` and `restore` (README "Backups"), as an operator
runs them, on both backends.

Quick ones run the CLI in-process against the test client's database; the
ones about the running service start real gunicorn and run the CLI as its
own process. Every refusal must be one `Error:` line with exit status 1, no
traceback, and leave the database as it was, which is proved by reading it
back through the API.
"""

import contextlib
import sqlite3
import threading
import time

import pytest

from content_publishing.app import create_app
from content_publishing.store.db import dispose_db
from content_publishing.store.versions import SCHEMA_VERSION
from harness import (
    WRITES,
    Client,
    FlaskCommand,
    Gunicorn,
    Ledger,
    create_key,
    flask_cli,
    postgres,
    read_posts,
    run_load,
    serve,
)
from harness.api import ITEM, POSTS
from harness.sqlite_direct import set_schema_version

COUNTS = "{} workspaces, {} keys, {} posts, 0 articles, 0 webhook endpoints"


def assert_refused(result, text):
    """One click error line naming the problem, exit status 1, no traceback."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or type(result.exception) is SystemExit, repr(result.exception)
    assert "Traceback" not in result.output
    assert result.output.strip().splitlines() == [result.output.strip()], result.output
    assert result.output.startswith("Error: ") and text in result.output, result.output


def create(api, content):
    r = api.post(POSTS, json={"type": "personal", "content": content})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()["id"]


def content_of(api, post_id):
    r = api.get(ITEM + post_id)
    return r.get_json()["content"] if r.status_code == 200 else r.status_code


def take_backup(runner, path, *args):
    result = runner.invoke(args=["backup", str(path), *args])
    assert result.exit_code == 0, result.output
    return result.output


# --- in-process, both backends ---------------------------------------------------------------


def test_restore_puts_back_what_the_backup_held(app, api, runner, tmp_path):
    kept = create(api, "in the backup")
    path = tmp_path / "service.backup"
    output = take_backup(runner, path)
    described = f"schema version {SCHEMA_VERSION}; {COUNTS.format(1, 1, 1)}"
    size = path.stat().st_size
    assert output.strip().splitlines() == [output.strip()]
    assert output.startswith("Backed up ") and f" to {path}: {size:,} bytes, {described}." in output
    assert path.stat().st_mode & 0o077 == 0  # the owner's alone
    later = create(api, "after the backup")
    assert api.patch(ITEM + kept, json={"content": "changed"}).status_code == 200

    result = runner.invoke(args=["restore", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Restored {path} into {result.output.split(' into ')[1]}"
    assert result.output.rstrip().endswith(f": {described}.")
    assert content_of(api, kept) == "in the backup"  # the key in the backup still works
    assert api.get(ITEM + kept).get_json()["version"] == 1
    assert content_of(api, later) == 404
    assert api.get(POSTS).get_json()["total"] == 1
    create(api, "written to the restored database")
    assert api.get(POSTS).get_json()["total"] == 2


def test_backup_refuses_an_existing_file_unless_forced(api, runner, tmp_path):
    create(api, "one")
    path = tmp_path / "taken.backup"
    path.write_bytes(b"an older backup")
    assert_refused(
        runner.invoke(args=["backup", str(path)]), f"{path} exists; give --force to replace it"
    )
    assert path.read_bytes() == b"an older backup"
    take_backup(runner, path, "--force")
    assert path.read_bytes()[:5] in (b"SQLit", b"PGDMP")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


def test_backup_refuses_a_database_that_is_missing_or_not_ours(request, backend, tmp_path):
    if backend == "sqlite":
        where, text = contextlib.nullcontext(str(tmp_path / "nothing.sqlite")), "does not exist"
    else:
        request.getfixturevalue("postgres_url")  # skips without a server
        where, text = postgres.fresh_database(prefix="tests"), "has no tables"
    with where as database:
        runner = create_app({"TESTING": True, "DATABASE": database}).test_cli_runner()
        result = runner.invoke(args=["backup", str(tmp_path / "out.backup")])
    assert_refused(result, text)
    assert "init-db" in result.output
    assert not list(tmp_path.glob("*out.backup*"))


def test_restore_refuses_bad_backups_and_changes_nothing(backend, app, api, runner, tmp_path):
    kept = create(api, "kept")
    good = tmp_path / "good.backup"
    take_backup(runner, good)
    later = create(api, "written after the backup")
    data = good.read_bytes()

    (tmp_path / "notes.txt").write_text("not a database at all\n" * 50)
    (tmp_path / "empty.backup").write_bytes(b"")
    (tmp_path / "truncated.backup").write_bytes(data[: len(data) // 2])
    newer = tmp_path / "newer.backup"
    cases = {
        "missing.backup": "backup {path} does not exist",
        "notes.txt": "{path} is not a backup of this service (neither an SQLite database nor",
        "empty.backup": "{path} is not a backup of this service",
        "newer.backup": f"{{path}} has schema version {SCHEMA_VERSION + 1}, newer than this"
        f" code ({SCHEMA_VERSION}); restore it with the version of the service that wrote it",
    }
    if backend == "sqlite":
        page = 4096  # a page in the middle overwritten: a b-tree no longer parses
        damaged = data[: 3 * page] + b"\xa5" * page + data[4 * page :]
        (tmp_path / "damaged.backup").write_bytes(damaged)
        cases["damaged.backup"] = "{path} is not an intact SQLite database (database disk image"
        cases["truncated.backup"] = "{path} is not an intact SQLite database"
        newer.write_bytes(data)
        set_schema_version(newer, SCHEMA_VERSION + 1)
        foreign = tmp_path / "foreign.sqlite"
        sqlite3.connect(foreign).execute("CREATE TABLE other (x)").connection.close()
        cases["foreign.sqlite"] = "{path} is not a backup of this service's database"
    else:
        cases["truncated.backup"] = "{path} is not a readable pg_dump archive"
        url = app.config["DATABASE"]
        postgres.set_schema_version(url, SCHEMA_VERSION + 1)
        try:
            postgres.archive(url, newer)
        finally:
            postgres.set_schema_version(url, SCHEMA_VERSION)

    for name, text in cases.items():
        path = tmp_path / name
        assert_refused(runner.invoke(args=["restore", str(path)]), text.format(path=path))
        assert content_of(api, kept) == "kept"
        assert content_of(api, later) == "written after the backup"
    assert api.get(POSTS).get_json()["total"] == 2


def test_a_backup_restores_only_into_its_own_backend(postgres_url, tmp_path):
    postgres.empty(postgres_url)
    apps = {
        "sqlite": create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite")}),
        "postgresql": create_app({"TESTING": True, "DATABASE": postgres_url}),
    }
    backups = {name: tmp_path / f"{name}.backup" for name in apps}
    wording = {"sqlite": "an SQLite", "postgresql": "a PostgreSQL"}
    try:
        for name, app in apps.items():
            runner = app.test_cli_runner()
            assert runner.invoke(args=["init-db"]).exit_code == 0
            runner.invoke(args=["keys", "create", "--user", name, "--scope", "posts:read"])
            take_backup(runner, backups[name])
        for name, app in apps.items():
            other = "postgresql" if name == "sqlite" else "sqlite"
            result = app.test_cli_runner().invoke(args=["restore", str(backups[other])])
            assert_refused(
                result,
                f"{backups[other]} is {wording[other]} backup; it restores only into"
                f" {wording[other]} database, and FLASK_DATABASE names {wording[name]} one",
            )
            listed = app.test_cli_runner().invoke(args=["keys", "list"]).output
            assert f" {name} " in listed and f" {other} " not in listed
    finally:
        for app in apps.values():
            with app.app_context():
                dispose_db()


# --- against real gunicorn -------------------------------------------------------------------


def test_restore_is_refused_while_the_service_runs(tmp_path, live_backend, live_database):
    backup = tmp_path / "before.backup"
    with serve(tmp_path, workers=2, database=live_database) as server:
        database = server.database
        key = create_key(database)
        runner = create_app({"DATABASE": str(database)}).test_cli_runner()
        with Client(server.url, key) as client:
            first = client.post(POSTS, {"type": "personal", "content": "first"}).json["id"]
            take_backup(runner, backup)
            second = client.post(POSTS, {"type": "personal", "content": "second"}).json["id"]
            refused = FlaskCommand(database, "restore", str(backup)).run_to_exit(60)
            assert refused.code == 1, refused.stderr + refused.stdout
            assert "Traceback" not in refused.stderr
            expected = (
                f"Error: another process has {database} open (the service's gunicorn or"
                " dispatcher?); stop the service before a restore"
                if live_backend == "sqlite"
                else "Error: the service is connected to schema "
            )
            assert refused.stderr.strip().splitlines() == [refused.stderr.strip()]
            assert refused.stderr.startswith(expected), refused.stderr
            assert client.get(ITEM + second).json["content"] == "second"  # nothing replaced
    # Stopped, the same restore goes through.
    restored = runner.invoke(args=["restore", str(backup)])
    assert restored.exit_code == 0 and restored.output.startswith("Restored "), restored.output
    with Gunicorn(database, workers=1) as server, Client(server.url, key) as client:
        assert client.get(ITEM + first).json["content"] == "first"
        assert client.get(ITEM + second).status == 404


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_a_backup_under_write_load_holds_every_write_acknowledged_before_it(
    tmp_path, live_backend, live_database
):
    under_load(tmp_path, live_backend, live_database, threads=8, posts=40, seconds=6)


@pytest.mark.slow
def test_a_backup_under_long_write_load_holds_every_write_acknowledged_before_it(
    tmp_path, live_backend, live_database
):
    under_load(tmp_path, live_backend, live_database, threads=32, posts=5000, seconds=60)


LOAD_CAP = 60  # seconds the writers go on at most, after `seconds`


def under_load(tmp_path, live_backend, live_database, threads, posts, seconds):
    """Writers keep going while `flask backup` runs, once `posts` posts exist
    (given up to `seconds` to get there); the copy, restored elsewhere and
    served by gunicorn, holds every write acknowledged before the backup
    began. The writers stop when the backup is done, or at LOAD_CAP: on a
    loaded machine a backup can outlast a load of fixed length."""
    ledger, stop, backup = Ledger(), threading.Event(), tmp_path / "under-load.backup"
    with serve(tmp_path, workers=4, database=live_database) as server:
        key = create_key(server.database)
        load = threading.Thread(
            target=run_load,
            args=(server.url, key, ledger),
            kwargs={
                "threads": threads,
                "seconds": seconds + LOAD_CAP,
                "max_requests": threads * 5000,
                "mix": WRITES,
                "stop": stop,
            },
        )
        load.start()
        try:
            # Up to `seconds` to reach `posts` (a busy machine writes slower).
            deadline = time.monotonic() + seconds
            while len(ledger.posts) < posts and time.monotonic() < deadline:
                time.sleep(0.05)
            # The command runs in this process, so that the copy starts right
            # after the acknowledged writes are noted.
            runner = create_app({"DATABASE": str(server.database)}).test_cli_runner()
            requests_before = ledger.requests()
            before = ledger.acknowledged_state()
            result = runner.invoke(args=["backup", str(backup)])
            during = ledger.requests() - requests_before
            still_writing = load.is_alive()
            time.sleep(0.3)
            after = ledger.requests() - requests_before - during
        finally:
            stop.set()
            load.join(30)
    failed = [c.text for c in ledger.check_responses() if not c.ok]
    assert not failed, failed
    assert len(before) >= posts and still_writing and after > 0, (len(before), still_writing, after)
    assert result.exit_code == 0 and result.output.startswith("Backed up "), result.output

    with _elsewhere(tmp_path, live_backend) as target:
        restored = flask_cli(target, "restore", str(backup))
        assert restored.startswith(f"Restored {backup} into ")
        create_key(target, user="bob")  # users and keys get new ids in the restored copy
        with Gunicorn(target, workers=2) as server, Client(server.url, key) as client:
            posts = read_posts(client)
            created = client.post(POSTS, {"type": "personal", "content": "after the restore"})
            assert created.status == 201  # the restored copy takes writes
    missing = [pid for pid in before if pid not in posts]
    older = [
        (pid, posts[pid]["version"], v)
        for pid, (v, _) in before.items()
        if pid in posts and posts[pid]["version"] < v
    ]
    changed = [
        pid
        for pid, (v, content) in before.items()
        if pid in posts
        and posts[pid]["version"] == v
        and content is not None
        and posts[pid]["content"] != content
    ]
    assert not missing and not older and not changed, (missing[:3], older[:3], changed[:3])
    print(
        f"\n{live_backend}: {len(before)} posts acknowledged before the backup, all restored;"
        f" {during} requests answered while it ran; {len(posts) - len(before)} later posts in it too"
    )


def _elsewhere(tmp_path, backend):
    """A new database to restore into: a file in a new directory, or a fresh schema."""
    if backend == "postgresql":
        return postgres.fresh_database(prefix="restored")
    (tmp_path / "restored").mkdir()
    return contextlib.nullcontext(tmp_path / "restored" / "db.sqlite")
