"""What a new user trips over on the first day: where things are, a port
already taken, keys that cannot work, and database settings that do not
mean what they seem."""

import io

import pytest
from PIL import Image

from content_publishing.app import create_app
from harness import Client, Gunicorn, create_key, flask_cli, serve

pytestmark = pytest.mark.sqlite_only  # starting up and the CLI's own checks


def test_the_root_redirects_to_the_dashboard(client):
    r = client.get("/")
    assert r.status_code == 302
    assert r.headers["Location"] == "/functions/v1/dashboard"
    assert client.get(r.headers["Location"]).status_code == 200


def test_gunicorn_says_where_the_api_dashboard_and_docs_are(tmp_path):
    with serve(tmp_path, workers=1, log=tmp_path / "server.log") as server:
        base = server.url
        log = (tmp_path / "server.log").read_text()
    assert (
        f"serving the API at {base}/functions/v1, the dashboard at {base}/functions/v1/dashboard"
        f" and the API docs at {base}/functions/v1/docs"
    ) in log


def test_a_taken_port_is_one_line_naming_it_and_the_way_out(tmp_path):
    with serve(tmp_path, workers=1) as server:
        second = Gunicorn(tmp_path / "second.sqlite", workers=1, port=server.port)
        result = second.run_to_exit(timeout=30)
    assert result.code == 1
    assert result.error_lines() == [
        f"error: cannot start: 127.0.0.1:{server.port} is already in use (another `make run`?);"
        f" choose another address, for example: BIND=127.0.0.1:{server.port + 1} make run"
    ]
    assert "Connection in use" not in result.stderr


def test_media_urls_name_the_port_gunicorn_binds_not_8000(tmp_path, monkeypatch):
    """FLASK_PUBLIC_URL unset and the service moved to another port (the
    way out the message above suggests): what it hands out points at it."""
    monkeypatch.delenv("FLASK_PUBLIC_URL", raising=False)
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(picture, "PNG")
    with serve(tmp_path, workers=1) as server:
        assert server.port != 8000
        with Client(server.url, create_key(server.database)) as client:
            r = client.post(
                "/functions/v1/media", picture.getvalue(), headers={"Content-Type": "image/png"}
            )
            assert r.status == 201, r.text
            media = r.json
            assert media["url"] == f"{server.url}/media/{media['id']}.png"
            assert client.get(media["url"].removeprefix(server.url)).status == 200


@pytest.mark.parametrize(
    ("bind", "url"),
    [
        ("127.0.0.1:8123", "http://127.0.0.1:8123"),
        ("0.0.0.0:8124", "http://127.0.0.1:8124"),  # a wildcard listens on loopback too
        ("[::]:8125", "http://[::1]:8125"),
        ("[::1]:8126", "http://[::1]:8126"),
        ("cps.internal:9000", "http://cps.internal:9000"),
        ("localhost", "http://localhost:8000"),  # gunicorn's port when none is given
        ("unix:/run/cps.sock", "http://127.0.0.1:8000"),  # no address: the default's
        ("", "http://127.0.0.1:8000"),
    ],
)
def test_public_url_defaults_to_the_bind_address(monkeypatch, tmp_path, bind, url):
    """What `flask dispatch` beside gunicorn (make run) takes for the
    callback_url and media URLs when only BIND is set."""
    monkeypatch.delenv("FLASK_PUBLIC_URL", raising=False)
    monkeypatch.setenv("BIND", bind)
    monkeypatch.setenv("FLASK_DATABASE", str(tmp_path / "b.sqlite"))
    assert create_app().config["PUBLIC_URL"] == url
    monkeypatch.setenv("FLASK_PUBLIC_URL", "https://cps.example.com")
    assert create_app().config["PUBLIC_URL"] == "https://cps.example.com"


def test_a_key_that_would_be_dead_on_arrival_is_refused(runner):
    for moment in ("2020-01-01T00:00:00Z", "2026-01-01T00:00:00+02:00"):
        result = runner.invoke(
            args=["keys", "create", "--user", "x", "--scope", "posts:read", "--expires-at", moment]
        )
        assert result.exit_code == 2, result.output
        assert "is not in the future" in result.output
        assert "Traceback" not in result.output
    assert "x " not in runner.invoke(args=["keys", "list"]).output


def test_revoking_a_revoked_key_says_so(runner, key):
    first = runner.invoke(args=["keys", "revoke", key])
    assert first.exit_code == 0 and first.output == "Revoked key 1.\n"
    again = runner.invoke(args=["keys", "revoke", "1"])
    assert again.exit_code == 0
    assert again.output.startswith("Key 1 was already revoked at ") and "Z." in again.output
    listing = runner.invoke(args=["keys", "list"]).output
    assert "revoked" in listing


def test_an_empty_database_setting_means_unset(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": "  "})
    assert app.config["DATABASE"] == f"{app.instance_path}/publishing.sqlite"


@pytest.mark.parametrize(
    "url", ["mysql://root@localhost/publishing", "sqlite:///var/lib/cps.sqlite", "MariaDB://x"]
)
def test_another_database_url_scheme_is_named(tmp_path, url):
    with pytest.raises(RuntimeError) as refused:
        flask_cli(url, "init-db")
    scheme = url.split("://")[0] + "://"
    assert f"FLASK_DATABASE has an unsupported database URL scheme {scheme!r}" in str(refused.value)
    assert "does not exist" not in str(refused.value)
