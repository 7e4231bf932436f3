"""The operator's CLI through Flask's CLI runner: keys, user names, init-db, and every
command's check of the database it is pointed at."""

import re
import shlex
import sqlite3

import pytest

from content_publishing.auth import SCOPES, hash_key
from content_publishing.store import keys as key_store
from harness.clock import ahead
from tests.conftest import assert_error

WEBHOOK_URL = "https://93.184.215.14/hooks/cps"  # a public address that needs no DNS


def assert_refused(result, *texts, exit_code=2):
    """A refusal is click's own: its exit code and message, no escaped exception."""
    assert result.exit_code == exit_code, result.output
    assert result.exception is None or type(result.exception) is SystemExit, repr(result.exception)
    assert "Traceback" not in result.output
    for text in texts:
        assert text in result.output, result.output
    assert not re.search(r"svc_live_[A-Za-z0-9]{32}", result.output)  # no key was made


def assert_one_line(result, *texts):
    """A refusal of ours: exit status 1, one line, no escaped exception."""
    assert_refused(result, *texts, exit_code=1)
    assert len(result.output.strip().splitlines()) == 1, result.output


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


@pytest.mark.parametrize("value", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_an_expiry_outside_the_years_utc_holds_is_one_line(runner, value):
    """A valid RFC 3339 time that lands in year 10000 or 0 once in UTC."""
    result = runner.invoke(
        args=["keys", "create", "--user", "a", "--scope", "posts:read", "--expires-at", value]
    )
    assert_one_line(
        result, f"Error: --expires-at '{value}' falls outside the years 1-9999 once moved to UTC"
    )
    assert runner.invoke(args=["keys", "list"]).output.strip() == "No API keys."


def test_list_shows_keys_without_secrets(app, runner, make_key, clock):
    expiry = ahead(3)  # the CLI makes no key that has expired already
    key = make_key("ann", ["posts:read", "articles:read"], expires_at=expiry)
    make_key("bob", SCOPES)
    clock.wait_past(expiry)
    result = runner.invoke(args=["keys", "list"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[:5] == ["ID", "PREFIX", "USER", "SCOPES", "STATE"]
    assert "ann" in lines[1] and "posts:read,articles:read" in lines[1] and "expired" in lines[1]
    assert expiry.replace("+00:00", "Z") in lines[1]
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


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "value, exit_code, text",
    [
        ("99", 1, "Error: No such key."),
        (str(2**63 - 1), 1, "Error: No such key."),  # the largest id a database holds
        (str(2**63), 1, "Error: No such key."),  # larger: SQLite raised OverflowError
        ("99999999999999999999999", 1, "Error: No such key."),
        ("svc_live_" + "x" * 40, 1, "Error: No such key."),
        ("nonsense", 2, "give a key id or a whole svc_live_ key"),
        ("\u0661", 2, "give a key id or a whole svc_live_ key"),
    ],
)
def test_revoke_unknown_or_garbage_fails(runner, key, value, exit_code, text):
    result = runner.invoke(args=["keys", "revoke", value])
    assert_refused(result, text, exit_code=exit_code)
    if exit_code == 1:
        assert result.output.strip() == text
    assert " active " in runner.invoke(args=["keys", "list"]).output


def test_demo_key_only_when_no_key_exists(client, runner):
    result = runner.invoke(args=["keys", "demo"])
    key = result.output.strip().splitlines()[-1]
    assert client.get("/functions/v1/api-v2-posts", headers={"X-API-Key": key}).status_code == 200
    again = runner.invoke(args=["keys", "demo"])
    assert again.exit_code == 0 and "svc_live_" not in again.output


def test_a_second_demo_says_how_to_make_a_key_and_that_command_works(client, runner):
    runner.invoke(args=["keys", "demo"])
    again = runner.invoke(args=["keys", "demo"])
    [command] = [line.strip() for line in again.output.splitlines() if "keys create" in line]
    prefix = ".venv/bin/flask --app app "
    assert command.startswith(prefix), command  # as `make run` calls it, from the checkout
    made = runner.invoke(args=shlex.split(command.removeprefix(prefix)))
    assert made.exit_code == 0, made.output
    key = made.output.strip().splitlines()[-1]
    me = client.get("/functions/v1/me", headers={"X-API-Key": key}).get_json()
    assert me["user"] == "demo" and set(me["key"]["scopes"]) == set(SCOPES)
    assert "keys list" in again.output


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
    from content_publishing.app import create_app

    app = create_app({"DATABASE": str(tmp_path / "nope" / "db.sqlite")})
    result = app.test_cli_runner().invoke(args=["init-db"])
    assert_refused(
        result, f"Error: database directory {tmp_path / 'nope'} does not exist", exit_code=1
    )


def test_init_db_refuses_files_that_are_not_usable_databases(tmp_path):
    import sqlite3

    from content_publishing.app import create_app

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


# A user name is written on every access-log line of the user's keys: the
# rules of the API's single-line text fields, and at most 100 characters.
BAD_USERS = [
    ("evil\x1b[31mred", "Must not contain control characters or line breaks (found U+001B)"),
    ("a\x00b", "found U+0000"),
    ("a\x7fb", "found U+007F"),
    ("a\x9bb", "found U+009B"),
    ("ann\nuser=root", "found U+000A"),
    ("a\rb", "found U+000D"),
    ("a\tb", "found U+0009"),
    ("a\u2028b", "found U+2028"),
    ("a\u2029b", "found U+2029"),
    ("\u200b", "Must contain a visible character"),
    ("\u200b\u2060\ufeff", "Must contain a visible character"),
    ("\u3164", "Must contain a visible character"),
    ("\U000e0041\U000e0042", "Must contain a visible character"),
    ("x" * 101, "must be at most 100 characters (this one has 101)"),
    ("x" * 5000, "must be at most 100 characters (this one has 5000)"),
]
GOOD_USERS = [
    ("ann", "ann"),
    ("  ann  ", "ann"),
    ("Zoë Müller", "Zoë Müller"),
    ("名前", "名前"),
    ("👩\u200d💻", "👩\u200d💻"),
    ("x" * 100, "x" * 100),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("user, reason", BAD_USERS)
def test_create_refuses_a_user_name_that_is_not_sane_text(runner, user, reason):
    result = runner.invoke(args=["keys", "create", "--user", user, "--scope", "posts:read"])
    assert_refused(result, "Invalid value for --user: ", reason)
    assert "\x1b" not in result.output  # the name is not echoed
    assert runner.invoke(args=["keys", "list"]).output.strip() == "No API keys."


@pytest.mark.backend_independent
@pytest.mark.parametrize("user, reason", BAD_USERS)
def test_webhooks_add_refuses_a_user_name_that_is_not_sane_text(runner, user, reason):
    result = runner.invoke(
        args=["webhooks", "add", "--user", user, "--url", WEBHOOK_URL, "--event", "post.due"]
    )
    assert_refused(result, "Invalid value for --user: ", reason)
    assert runner.invoke(args=["webhooks", "list"]).output.strip() == "No webhook endpoints."


@pytest.mark.parametrize("user, stored", GOOD_USERS)
def test_sane_user_names_are_kept(app, runner, user, stored):
    result = runner.invoke(args=["keys", "create", "--user", user, "--scope", "posts:read"])
    assert result.exit_code == 0, result.output
    assert f"for user {stored} with" in result.output
    assert f"  {stored}  " in runner.invoke(args=["keys", "list"]).output.splitlines()[1]
    result = runner.invoke(
        args=["webhooks", "add", "--user", user, "--url", WEBHOOK_URL, "--event", "post.due"]
    )
    assert result.exit_code == 0, result.output
    assert f"for user {stored}:" in result.output


# Every command that reads or changes data. ({tmp}: the test's directory.)
DATA_COMMANDS = [
    ["keys", "list"],
    ["keys", "demo"],
    ["keys", "revoke", "1"],
    ["keys", "create", "--user", "a", "--scope", "posts:read"],
    ["webhooks", "add", "--user", "a", "--url", WEBHOOK_URL, "--event", "post.due"],
    ["webhooks", "list"],
    ["webhooks", "remove", "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"],
    ["webhooks", "test", "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"],
    ["dispatch", "--seconds", "1"],
    ["backup", "{tmp}/backup.sqlite"],
]
NOT_THERE = (
    "Error: database {path} does not exist. Set FLASK_DATABASE to the database the "
    "server uses, or create this one with `flask --app app init-db`."
)


def cli(path):
    from content_publishing.app import create_app

    return create_app({"DATABASE": str(path)}).test_cli_runner()


def invoke(path, args, tmp_path):
    return cli(path).invoke(args=[arg.format(tmp=tmp_path) for arg in args])


@pytest.mark.parametrize("args", DATA_COMMANDS)
def test_commands_refuse_a_database_that_is_not_there(tmp_path, args):
    """Run without the FLASK_DATABASE the server uses, a command must not
    create an empty database, and says in one line what to do."""
    path = tmp_path / "instance" / "publishing.sqlite"
    path.parent.mkdir()
    result = invoke(path, args, tmp_path)
    assert not path.exists() and not (tmp_path / "backup.sqlite").exists()
    assert_one_line(result)
    assert result.output.strip() == NOT_THERE.format(path=path), result.output


def test_copy_db_refuses_a_database_that_is_not_there(tmp_path):
    path = tmp_path / "publishing.sqlite"
    result = cli(path).invoke(args=["copy-db", "--to", "postgresql://127.0.0.1:1/none"])
    assert_one_line(result, f"Error: database {path} does not exist. Nothing was written.")
    assert not path.exists()


def a_backup(tmp_path):
    """A backup of a new database, to restore."""
    source = cli(tmp_path / "source.sqlite")
    assert source.invoke(args=["init-db"]).exit_code == 0
    result = source.invoke(args=["backup", str(tmp_path / "a-backup.sqlite")])
    assert result.exit_code == 0, result.output
    return str(tmp_path / "a-backup.sqlite")


@pytest.mark.parametrize(
    "args",
    [
        ["init-db"],
        *DATA_COMMANDS,
        ["restore", "{tmp}/a-backup.sqlite"],
    ],
)
def test_commands_refuse_a_directory_as_the_database(tmp_path, args):
    """FLASK_DATABASE naming a directory (the instance folder, say): one line
    naming it and what to set instead, not IsADirectoryError."""
    a_backup(tmp_path)
    directory = tmp_path / "instance"
    directory.mkdir()
    result = invoke(directory, args, tmp_path)
    assert_one_line(
        result,
        f"Error: database {directory} is a directory, not a file: FLASK_DATABASE names "
        f"the SQLite file itself (such as {directory / 'publishing.sqlite'})",
    )
    assert list(directory.iterdir()) == []


def test_gunicorn_refuses_a_directory_as_the_database(tmp_path):
    from harness import Gunicorn

    result = Gunicorn(tmp_path, workers=1).run_to_exit(timeout=30)
    assert result.code == 1, result.stderr
    assert result.error_lines() == [
        f"error: cannot start: database {tmp_path} is a directory, not a file: "
        f"FLASK_DATABASE names the SQLite file itself (such as {tmp_path / 'publishing.sqlite'})"
    ]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["keys", "list"], ["webhooks", "list"], ["backup", "{tmp}/b"]])
def test_commands_call_an_empty_file_what_it_is(tmp_path, args):
    """A 0-byte file is there: it is empty, which init-db can fill."""
    path = tmp_path / "publishing.sqlite"
    path.touch()
    result = invoke(path, args, tmp_path)
    assert_one_line(
        result, f"Error: database {path} is an empty file (0 bytes). Set FLASK_DATABASE"
    )
    assert "does not exist" not in result.output
    assert path.stat().st_size == 0
    assert cli(path).invoke(args=["init-db"]).exit_code == 0
    assert cli(path).invoke(args=["keys", "list"]).output.strip() == "No API keys."


def test_commands_refuse_a_database_without_tables(tmp_path):
    from content_publishing.app import create_app

    path = tmp_path / "empty.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    result = create_app({"DATABASE": str(path)}).test_cli_runner().invoke(args=["keys", "list"])
    assert_refused(result, "has no tables", "init-db", exit_code=1)


@pytest.mark.parametrize("args", [["keys", "list"], ["init-db"], ["dispatch", "--seconds", "1"]])
def test_a_bad_setting_stops_any_command_with_one_line(tmp_path, args):
    """As gunicorn's start does: the variable named, no traceback."""
    from harness import FlaskCommand

    command = FlaskCommand(
        tmp_path / "cli.sqlite",
        *args,
        env={"FLASK_DISPATCH_LEASE_SECONDS": "2"},  # must outlast the 15 s webhook timeout
    )
    result = command.run_to_exit(timeout=60)
    assert result.code not in (0, None)
    assert result.stderr.startswith("Error: FLASK_DISPATCH_LEASE_SECONDS must exceed"), (
        result.stderr
    )
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "cli.sqlite").exists()
