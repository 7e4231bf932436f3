"""Settings, health, CORS and the error envelope on every error path."""

import json

import pytest

from content_publishing.app import create_app
from content_publishing.store.versions import SCHEMA_VERSION
from harness.api import POSTS
from tests.conftest import assert_error

ALLOWED = ["authorization", "x-api-key", "x-client-info", "apikey", "content-type"]


def test_health_needs_no_key(client):
    r = client.get("/health")
    assert r.status_code == 200
    assert r.get_json() == {"status": "ok", "database": True}


def test_settings_come_from_prefixed_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("FLASK_DATABASE", str(tmp_path / "env.sqlite"))
    monkeypatch.setenv("FLASK_CORS_ORIGINS", '["http://one.test", "http://two.test"]')
    monkeypatch.setenv("FLASK_MAX_CONTENT_LENGTH", "2048")
    app = create_app()
    assert app.config["DATABASE"] == str(tmp_path / "env.sqlite")
    assert app.config["MAX_CONTENT_LENGTH"] == 2048
    assert app.config["CORS_ORIGINS"] == ["http://one.test", "http://two.test"]


def test_defaults(monkeypatch):
    for name in ("FLASK_DATABASE", "FLASK_CORS_ORIGINS", "FLASK_MAX_CONTENT_LENGTH"):
        monkeypatch.delenv(name, raising=False)
    app = create_app()
    assert app.config["DATABASE"].startswith(app.instance_path)
    assert app.config["CORS_ORIGINS"] == "*"
    assert app.config["MAX_CONTENT_LENGTH"] == 1024 * 1024


def preflight(client, origin="http://elsewhere.test", method="POST"):
    return client.options(
        POSTS,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": ", ".join(ALLOWED),
        },
    )


def test_preflight_needs_no_key_and_allows_the_reference_headers(client):
    r = preflight(client)
    assert r.status_code == 200
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert set(ALLOWED) <= allowed
    methods = {m.strip() for m in r.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "POST", "PATCH", "OPTIONS"} <= methods
    assert r.headers["Access-Control-Allow-Origin"] in ("*", "http://elsewhere.test")


def test_cors_origins_from_settings(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite"), "CORS_ORIGINS": "http://ok.test"})
    client = app.test_client()
    assert preflight(client, "http://ok.test").headers["Access-Control-Allow-Origin"] == (
        "http://ok.test"
    )
    assert "Access-Control-Allow-Origin" not in preflight(client, "http://evil.test").headers


def test_no_origin_no_cors_headers(api):
    r = api.get(POSTS)
    assert r.status_code == 200
    assert not [h for h, _ in r.headers if h.lower().startswith("access-control-")]
    r = api.get(POSTS, headers={"Origin": "http://elsewhere.test"})
    assert r.headers["Access-Control-Allow-Origin"] in ("*", "http://elsewhere.test")
    assert "ETag" in r.headers.get("Access-Control-Expose-Headers", "")


def test_error_responses_carry_cors_headers(client):
    r = client.get(POSTS, headers={"Origin": "http://elsewhere.test"})
    assert_error(r, 401, "unauthorized")
    assert "Access-Control-Allow-Origin" in r.headers


def test_unknown_path_is_404_envelope(client):
    assert_error(client.get("/functions/v1/nothing-here"), 404, "not_found")
    assert_error(client.get("/nothing"), 404, "not_found")


def test_wrong_method_is_405_envelope(api):
    r = api.client.delete(POSTS, headers={"X-API-Key": api.key})
    assert_error(r, 405, "method_not_allowed")
    assert "GET" in r.headers["Allow"]


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "x"}])
def test_payload_too_large_is_413_before_the_key_is_looked_at(tmp_path, headers):
    app = create_app({"DATABASE": str(tmp_path / "s.sqlite"), "MAX_CONTENT_LENGTH": 100})
    r = app.test_client().post(
        POSTS,
        data=json.dumps({"content": "x" * 500}),
        content_type="application/json",
        headers=headers,
    )
    err = assert_error(r, 413, "payload_too_large")
    assert "100 bytes" in err["message"]


def test_payload_too_large_with_a_key(app, api):
    app.config["MAX_CONTENT_LENGTH"] = 100
    r = api.post(POSTS, json={"type": "personal", "content": "x" * 500})
    assert_error(r, 413, "payload_too_large")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": "type=personal"},
        {"data": "{}", "content_type": "text/csv"},
        {"data": "<post/>", "content_type": "application/xml"},
    ],
)
def test_non_json_body_is_415_envelope(api, kwargs):
    r = api.client.post(POSTS, headers={"X-API-Key": api.key}, **kwargs)
    assert_error(r, 415, "unsupported_media_type")


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8", "TEXT/PLAIN"])
def test_json_sent_as_text_plain_is_read_as_json(api, content_type):
    """What Supabase's clients send for a string body, as the hosted functions take it."""
    body = '{"type": "personal", "content": "sent as text"}'
    r = api.client.post(POSTS, data=body, content_type=content_type, headers={"X-API-Key": api.key})
    assert r.status_code == 201 and r.get_json()["content"] == "sent as text"
    error = assert_error(
        api.client.post(
            POSTS, data="type=personal", content_type=content_type, headers={"X-API-Key": api.key}
        ),
        400,
        "bad_request",
    )
    assert "text/plain" in error["message"]
    assert api.get(POSTS).get_json()["total"] == 1


@pytest.mark.backend_independent
@pytest.mark.parametrize("raw", ["{", "", "{'a': 1}", "[1,", "nul"])
def test_malformed_json_is_400_envelope(api, raw):
    r = api.client.post(
        POSTS, data=raw, content_type="application/json", headers={"X-API-Key": api.key}
    )
    err = assert_error(r, 400, "bad_request")
    assert "JSON" in err["message"]


def test_unexpected_error_is_500_envelope_without_trace(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "e.sqlite")})

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret detail")

    r = app.test_client().get("/boom")
    err = assert_error(r, 500, "internal_error")
    assert "secret" not in r.get_data(as_text=True)
    assert "Traceback" not in r.get_data(as_text=True)
    assert err["details"] == {}


def test_lock_timeout_is_503_busy(app, api, backend):
    """A writer holding a lock past the busy timeout makes the next one a
    retryable 503, and changes nothing: the whole database on SQLite, the
    post's row on PostgreSQL."""
    import sqlite3

    import psycopg

    from content_publishing.store.db import dispose_db

    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    app.config["SQLITE_BUSY_TIMEOUT_MS"] = 50
    with app.app_context():
        dispose_db()  # the next connection takes the short timeout
    if backend == "sqlite":
        blocker = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
    else:
        blocker = psycopg.connect(app.config["DATABASE"])
        blocker.execute("SELECT 1 FROM posts WHERE id = %s FOR UPDATE", (post["id"],))
    try:
        r = api.patch(f"/functions/v1/api-v2-posts-item/{post['id']}", json={"content": "late"})
    finally:
        blocker.rollback()
        blocker.close()
    assert_error(r, 503, "busy")
    assert r.headers["Retry-After"] == "1"
    assert api.get(f"/functions/v1/api-v2-posts-item/{post['id']}").get_json() == post


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_database_restart_costs_no_request(app, api, backend):
    """PostgreSQL ends the worker's connection (a restart, a failover, an
    idle timeout): the next requests, a read and a write, open a new one
    and are answered as usual instead of with a 503."""
    import psycopg

    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    with psycopg.connect(app.config["DATABASE"], autocommit=True) as admin:
        ended = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = 'content-publishing:' || current_schema()"
            " AND pid <> pg_backend_pid()"
        ).fetchone()[0]
    assert ended >= 1
    item = f"/functions/v1/api-v2-posts-item/{post['id']}"
    assert api.get(item).status_code == 200
    with psycopg.connect(app.config["DATABASE"], autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'content-publishing:' || current_schema()"
            " AND pid <> pg_backend_pid()"
        )
    changed = api.patch(item, json={"content": "after the restart"})
    assert changed.status_code == 200, changed.get_json()
    assert api.get(item).get_json()["content"] == "after the restart"


@pytest.mark.sqlite_only
def test_full_storage_refuses_writes_and_keeps_reads(tmp_path, make_key, app):
    app.config["SQLITE_MAX_PAGE_COUNT"] = 60  # about 240 kB with 4 kB pages
    from content_publishing.store.db import dispose_db

    with app.app_context():
        dispose_db()  # the next connection gets the cap
    key = make_key("filler")
    client = app.test_client()
    headers = {"X-API-Key": key}
    created, refused = [], None
    for i in range(200):
        r = client.post(
            "/functions/v1/api-v2-posts",
            headers=headers,
            json={"type": "personal", "content": f"{i} " + "x" * 2990},
        )
        if r.status_code != 201:
            refused = r
            break
        created.append(r.get_json())
    assert refused is not None and created, "the cap was never reached"
    err = assert_error(refused, 507, "storage_full")
    assert "full" in err["message"]
    page = client.get("/functions/v1/api-v2-posts?limit=100", headers=headers).get_json()
    assert page["total"] == len(created)
    assert [p["id"] for p in page["data"]] == [p["id"] for p in created[::-1][:100]]
    for post in created:
        r = client.get(f"/functions/v1/api-v2-posts-item/{post['id']}", headers=headers)
        assert r.get_json() == post


@pytest.mark.parametrize(
    "name, value",
    [
        ("SQLITE_SYNCHRONOUS", "fast"),
        ("MAX_CONTENT_LENGTH", "1MB"),
        ("KEY_TOUCH_INTERVAL", -1),
        ("SQLITE_BUSY_TIMEOUT_MS", True),
        ("SQLITE_MAX_PAGE_COUNT", "many"),
        ("METRICS", "yes"),
        ("LOG_FORMAT", "xml"),
        ("LINKEDIN_AUTH_BASE", "linkedin.com"),
        ("LINKEDIN_PUBLISH", "sometimes"),
        ("LINKEDIN_PUBLISH_WORKERS", 0),
        ("LINKEDIN_TIMEOUT_SECONDS", 0),
        ("LINKEDIN_CHECK_DELAY_SECONDS", -1),
    ],
)
def test_bad_settings_are_refused_naming_the_variable(tmp_path, name, value):
    from content_publishing.settings import SettingError

    with pytest.raises(SettingError, match=f"FLASK_{name}"):
        create_app({"DATABASE": str(tmp_path / "s.sqlite"), name: value})


def test_the_linkedin_client_secret_comes_from_the_setting_or_a_file(tmp_path):
    from content_publishing.settings import SettingError

    base = {"DATABASE": str(tmp_path / "s.sqlite"), "LINKEDIN_CLIENT_ID": "app"}
    secret = tmp_path / "linkedin-secret"
    secret.write_text("from-a-file\n")
    app = create_app({**base, "LINKEDIN_CLIENT_SECRET_FILE": str(secret)})
    assert app.config["LINKEDIN_CLIENT_SECRET"] == "from-a-file"
    assert (
        create_app({**base, "LINKEDIN_CLIENT_SECRET": "given"}).config["LINKEDIN_CLIENT_SECRET"]
        == "given"
    )
    with pytest.raises(SettingError, match="the client secret is not"):
        create_app(base)
    with pytest.raises(SettingError, match="both set"):
        create_app(
            {**base, "LINKEDIN_CLIENT_SECRET": "x", "LINKEDIN_CLIENT_SECRET_FILE": str(secret)}
        )
    with pytest.raises(SettingError, match="FLASK_LINKEDIN_CLIENT_SECRET_FILE cannot be read"):
        create_app({**base, "LINKEDIN_CLIENT_SECRET_FILE": str(tmp_path / "missing")})
    # Without a client id nothing is needed: the rest of the service runs as before.
    assert create_app({"DATABASE": str(tmp_path / "s.sqlite")}).config["LINKEDIN_CLIENT_ID"] is None


def test_the_secrets_key_may_come_from_a_file_which_must_hold_one(tmp_path):
    """FLASK_SECRETS_KEY_FILE (a compose secret, compose.yaml): its key seals."""
    from cryptography.fernet import Fernet

    from content_publishing.sealing import seal
    from content_publishing.settings import SettingError

    base = {"DATABASE": str(tmp_path / "s.sqlite")}
    key = Fernet.generate_key()
    key_file = tmp_path / "secrets_key"
    key_file.write_bytes(key + b"\n")
    app = create_app({**base, "SECRETS_KEY_FILE": str(key_file)})
    with app.app_context():
        assert Fernet(key).decrypt(seal("whsec_x").encode()) == b"whsec_x"
    assert not (tmp_path / "instance" / "secrets.key").exists()
    assert create_app({**base, "SECRETS_KEY_FILE": " "}).config["SECRETS_KEY"] is None  # unset
    refused = [
        ({"SECRETS_KEY_FILE": str(tmp_path / "missing")}, "cannot be read: No such file"),
        ({"SECRETS_KEY_FILE": str(tmp_path)}, "cannot be read: Is a directory"),
        ({"SECRETS_KEY_FILE": str(key_file), "SECRETS_KEY": key.decode()}, "both set"),
    ]
    for settings, words in refused:
        with pytest.raises(SettingError, match=f"FLASK_SECRETS_KEY.* {words}"):
            create_app({**base, **settings})
    for wrong in (b"", b"not a key", key[:-2], b"\xff\xfe"):
        key_file.write_bytes(wrong)
        with pytest.raises(
            SettingError, match="FLASK_SECRETS_KEY_FILE does not hold a secrets key"
        ):
            create_app({**base, "SECRETS_KEY_FILE": str(key_file)})


def test_gunicorn_refuses_a_bad_setting_with_one_line(tmp_path):
    from harness import Gunicorn

    env = {"FLASK_SQLITE_SYNCHRONOUS": "fast", "PATH": "/usr/bin:/bin"}
    result = Gunicorn(tmp_path / "g.sqlite", env=env, inherit_env=False).run_to_exit(timeout=30)
    assert result.code == 1
    assert result.error_lines() == [
        "error: cannot start: FLASK_SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA"
    ]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("url", "expect"),
    [
        ("postgresql://[::1/test", "FLASK_DATABASE is not a usable PostgreSQL URL"),
        ("postgresql://127.0.0.1:5432/test?sslmode=bogus", "not a usable PostgreSQL URL"),
        ("postgresql://127.0.0.1:1/test", "cannot reach PostgreSQL at 127.0.0.1:1"),
        ("postgresql://127.0.0.1:5432/no_such_database", "'no_such_database' does not exist"),
        ("newer", "database schema version 999 is newer than this code"),
    ],
)
def test_gunicorn_refuses_a_postgresql_database_it_cannot_use(tmp_path, postgres_url, url, expect):
    from harness import Gunicorn, postgres

    if url == "newer":
        url = postgres_url
        postgres.set_schema_version(url, 999)
    try:
        result = Gunicorn(url, workers=1).run_to_exit(timeout=30)
    finally:
        postgres.set_schema_version(postgres_url, SCHEMA_VERSION)
    assert result.code == 1, result.stderr
    (line,) = result.error_lines()
    assert line.startswith("error: cannot start: ") and expect in line, line
    assert "Traceback" not in result.stderr


def test_health_reports_a_database_that_does_not_answer(tmp_path):
    app = create_app({"DATABASE": str(tmp_path)})  # a directory cannot be opened
    r = app.test_client().get("/health")
    assert r.status_code == 200
    assert r.get_json() == {"status": "degraded", "database": False}


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "path",
    [
        "/functions/v1//api-v2-posts",
        "//functions/v1/api-v2-posts",
        "/functions//v1/api-v2-posts",
        "/functions/v1/api-v2-posts/",
    ],
)
def test_doubled_slashes_are_404_not_a_redirect(api, path):
    r = api.get(path, headers={"Host": "evil.example"})
    assert_error(r, 404, "not_found")
    assert "Location" not in r.headers


def test_vary_origin_with_listed_origins(tmp_path, make_key):
    app = create_app(
        {
            "DATABASE": str(tmp_path / "test.sqlite"),
            "CORS_ORIGINS": "https://a.example,https://b.example",
        }
    )
    client = app.test_client()
    for r in (
        client.get("/health"),
        client.get("/functions/v1/openapi.json"),
        client.get(POSTS),
        client.get(POSTS, headers={"Origin": "https://a.example"}),
        preflight(client, "https://b.example"),
    ):
        vary = [part.strip() for part in r.headers.get("Vary", "").split(",")]
        assert vary.count("Origin") == 1, r.headers  # once, whoever added it


def test_authenticated_answers_are_not_stored(api):
    for r in (
        api.get(POSTS),
        api.post(POSTS, json={"type": "personal", "content": "x"}),
        api.get(POSTS + "?limit=0"),
        api.get("/functions/v1/api-v2-posts-item/x"),
    ):
        assert r.headers["Cache-Control"] == "no-store", r.status_code
    assert api.client.get(POSTS).headers["Cache-Control"] == "no-store"  # the 401 too


def test_a_schema_being_created_does_not_hold_up_another_schemas_start(postgres_url, tmp_path):
    """init-db (every worker's start, copy-db, restore) locks its own schema
    only: while one schema's init lock is held (a long copy-db into it), a
    service starting on another schema of the same database is not kept
    waiting, and one starting on the same schema is."""
    import time

    import psycopg

    from content_publishing.store import backend_postgres
    from harness import FlaskCommand, flask_cli, postgres

    with postgres.fresh_database(prefix="busy") as busy, postgres.fresh_database() as other:
        with psycopg.connect(busy, autocommit=True) as holder:
            holder.execute("BEGIN")
            holder.execute(
                backend_postgres.INIT_LOCK_SQL,
                (backend_postgres.INIT_LOCK, backend_postgres.current_schema(holder)),
            )
            assert "Database ready" in flask_cli(other, "init-db", timeout=20)
            waiting = FlaskCommand(busy, "init-db", log=tmp_path / "init-db.log").launch()
            time.sleep(3)
            assert waiting.running  # held up by the lock on its own schema
            holder.execute("ROLLBACK")
        assert waiting.proc.wait(timeout=30) == 0
        assert "Database ready" in waiting.log_text()
