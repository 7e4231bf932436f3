"""The key CLI and init-db, through Flask's CLI runner."""

import re
import sqlite3

import pytest

from auth import SCOPES, hash_key
from store import keys as key_store
from tests.conftest import assert_error


def assert_refused(result, *texts, exit_code=2):
    """A refusal is click's own: its exit code and message, no escaped exception."""
    assert result.exit_code == exit_code, result.output
    assert result.exception is None or type(result.exception) is SystemExit, repr(result.exception)
    assert "Traceback" not in result.output
    for text in texts:
        assert text in result.output, result.output
    assert not re.search(r"svc_live_[A-Za-z0-9]{32}", result.output)  # no key was made


def test_create_prints_the_key_alone_on_the_last_line(runner):
    result = runner.invoke(args=["keys", "create", "--user", "ann", "--scope", "posts:read"])
    assert result.exit_code == 0
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("svc_live_") and len(last) >= 9 + 32
    assert last.isalnum() is False and last[9:].isalnum()


def test_keys_are_unique(make_key):
    assert len({make_key("u") for _ in range(20)}) == 20


def test_unknown_scope_is_refused(runner):
    result = runner.invoke(args=["keys", "create", "--user", "ann", "--scope", "posts:delete"])
    assert_refused(result, "Invalid value for '--scope'", "posts:delete", "posts:read")


def test_scope_is_required(runner):
    result = runner.invoke(args=["keys", "create", "--user", "ann"])
    assert_refused(result, "Missing option '--scope'")


@pytest.mark.parametrize("bad", ["tomorrow", "2030-01-01T00:00:00", "2030-01-01 00:00:00Z"])
def test_bad_expiry_is_refused(runner, bad):
    result = runner.invoke(
        args=["keys", "create", "--user", "a", "--scope", "posts:read", "--expires-at", bad]
    )
    assert_refused(result, "Invalid value for '--expires-at'", "RFC 3339")
    assert runner.invoke(args=["keys", "list"]).output.strip() == "No API keys."


def test_list_shows_keys_without_secrets(app, runner, make_key):
    key = make_key("ann", ["posts:read", "articles:read"], expires_at="2020-01-01T00:00:00Z")
    make_key("bob", SCOPES)
    result = runner.invoke(args=["keys", "list"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[:5] == ["ID", "PREFIX", "USER", "SCOPES", "STATE"]
    assert "ann" in lines[1] and "posts:read,articles:read" in lines[1] and "expired" in lines[1]
    assert "2020-01-01T00:00:00.000000Z" in lines[1]
    assert "bob" in lines[2] and "active" in lines[2]
    assert key not in result.output and key[9:20] not in result.output
    assert hash_key(key) not in result.output


def test_revoke_by_id_and_by_key(client, runner, make_key):
    first, second = make_key("ann"), make_key("ann")
    assert runner.invoke(args=["keys", "revoke", "1"]).exit_code == 0
    assert runner.invoke(args=["keys", "revoke", second]).exit_code == 0
    for key in (first, second):
        r = client.get("/functions/v1/api-v2-posts", headers={"X-API-Key": key})
        assert_error(r, 401, "unauthorized")
    assert runner.invoke(args=["keys", "list"]).output.count(" revoked ") == 2


@pytest.mark.parametrize(
    "value, exit_code, text",
    [
        ("99", 1, "Error: No such key."),
        ("svc_live_" + "x" * 40, 1, "Error: No such key."),
        ("nonsense", 2, "give a key id or a whole svc_live_ key"),
        ("\u0661", 2, "give a key id or a whole svc_live_ key"),
    ],
)
def test_revoke_unknown_or_garbage_fails(runner, key, value, exit_code, text):
    result = runner.invoke(args=["keys", "revoke", value])
    assert_refused(result, text, exit_code=exit_code)
    assert " active " in runner.invoke(args=["keys", "list"]).output


def test_demo_key_only_when_no_key_exists(client, runner):
    result = runner.invoke(args=["keys", "demo"])
    key = result.output.strip().splitlines()[-1]
    assert client.get("/functions/v1/api-v2-posts", headers={"X-API-Key": key}).status_code == 200
    again = runner.invoke(args=["keys", "demo"])
    assert again.exit_code == 0 and "svc_live_" not in again.output


def test_init_db_is_idempotent_and_keeps_data(app, runner, api):
    created = api.post("/functions/v1/api-v2-posts", json={"type": "personal", "content": "kept"})
    assert created.status_code == 201
    for _ in range(2):
        result = runner.invoke(args=["init-db"])
        assert result.exit_code == 0, result.output
    r = api.get(created.headers["Location"])
    assert r.status_code == 200 and r.get_json()["content"] == "kept"
    with app.app_context():
        assert key_store.count_keys() == 1


def test_init_db_refuses_a_missing_directory(tmp_path):
    from app import create_app

    app = create_app({"DATABASE": str(tmp_path / "nope" / "db.sqlite")})
    result = app.test_cli_runner().invoke(args=["init-db"])
    assert_refused(
        result, f"Error: database directory {tmp_path / 'nope'} does not exist", exit_code=1
    )


def test_init_db_refuses_files_that_are_not_usable_databases(tmp_path):
    import sqlite3

    from app import create_app

    cases = {
        "text.sqlite": b"hello, this is not a database" * 10,
        "corrupt.sqlite": b"SQLite format 3\x00" + b"\xff" * 4080,
    }
    newer = tmp_path / "newer.sqlite"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    for name, expected in [
        ("text.sqlite", "not an SQLite database"),
        ("corrupt.sqlite", "not a usable SQLite database"),
        ("newer.sqlite", "newer than this code"),
    ]:
        app = create_app({"DATABASE": str(tmp_path / name)})
        result = app.test_cli_runner().invoke(args=["init-db"])
        assert_refused(result, expected, exit_code=1)


def test_create_refuses_an_empty_user(runner):
    result = runner.invoke(args=["keys", "create", "--user", "  ", "--scope", "posts:read"])
    assert_refused(result, "Invalid value for --user: must not be empty")


@pytest.mark.parametrize(
    "args",
    [
        ["keys", "list"],
        ["keys", "demo"],
        ["keys", "revoke", "1"],
        ["keys", "create", "--user", "a", "--scope", "posts:read"],
    ],
)
def test_commands_refuse_a_database_that_is_not_there(tmp_path, args):
    """Run without the FLASK_DATABASE the server uses, a command must not
    create an empty database, and says in one line what to do."""
    from app import create_app

    path = tmp_path / "instance" / "publishing.sqlite"
    path.parent.mkdir()
    app = create_app({"DATABASE": str(path)})
    result = app.test_cli_runner().invoke(args=args)
    assert_refused(result, exit_code=1)
    lines = result.output.strip().splitlines()
    assert lines == [
        f"Error: database {path} does not exist. Set FLASK_DATABASE to the "
        "database the server uses, or create this one with `flask --app app "
        "init-db`."
    ], result.output
    assert not path.exists()


def test_commands_refuse_a_database_without_tables(tmp_path):
    from app import create_app

    path = tmp_path / "empty.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    result = create_app({"DATABASE": str(path)}).test_cli_runner().invoke(args=["keys", "list"])
    assert_refused(result, "has no tables", "init-db", exit_code=1)


@pytest.mark.parametrize("args", [["keys", "list"], ["init-db"], ["dispatch", "--seconds", "1"]])
def test_a_bad_setting_stops_any_command_with_one_line(tmp_path, args):
    """As gunicorn's start does: the variable named, no traceback."""
    import os
    import subprocess

    from harness import BIN, ROOT

    env = {
        **os.environ,
        "FLASK_DATABASE": str(tmp_path / "cli.sqlite"),
        "FLASK_DISPATCH_LEASE_SECONDS": "2",  # must outlast the 15 s webhook timeout
    }
    result = subprocess.run(
        [BIN / "flask", "--app", "app", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert result.stderr.startswith("Error: FLASK_DISPATCH_LEASE_SECONDS must exceed"), (
        result.stderr
    )
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "cli.sqlite").exists()
