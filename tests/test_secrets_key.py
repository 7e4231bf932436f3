"""The secrets key that seals webhook secrets and LinkedIn tokens, malformed,
lost or changed: a malformed FLASK_SECRETS_KEY, or a missing key file while
sealed values exist, refuses the start with one line naming the setting and
the fix; a webhook delivery whose secret cannot be opened fails, saying so;
a disconnect never answers 500; and `flask secrets rotate` seals every
secret and token again under a new key, in one transaction. (A post whose
token the key cannot open: tests/test_linkedin_publish.py.)"""

import threading

import pytest
from cryptography.fernet import Fernet

from content_publishing import sealing
from content_publishing.app import create_app
from content_publishing.settings import SettingError
from content_publishing.store import sealed as sealed_store
from content_publishing.store.db import transaction
from harness import Gunicorn
from harness.api import DELIVERIES, HOOKS, PING
from tests.conftest import together
from tests.linkedin_support import CHANNEL, CONNECT, linkedin_for, settings
from tests.test_linkedin_connect import channel, connect

PUBLIC = "http://cps.test"
HOOK_URL = "https://93.184.215.14/hooks/cps"  # never reached


@pytest.fixture
def linkedin(app):
    with linkedin_for(PUBLIC) as standin:
        app.config.update(settings(standin, PUBLIC))
        yield standin


def another_key(app):
    """The app's secrets key changed (as after a lost key file or a wrong setting)."""
    app.config["SECRETS_KEY"] = Fernet.generate_key().decode()
    sealing.forget_cached_key(app)


def key_problem(app):
    """What a start (gunicorn's, the dispatcher's) says of the secrets key."""
    return sealing.check_key(
        app.config, app.instance_path, lambda: sealed_store.any_stored(app.config)
    )


def hook(api):
    r = api.post(HOOKS, json={"url": HOOK_URL, "events": ["post.failed"]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


# --- the start -----------------------------------------------------------------------------


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "bad",
    ["notakey", "x" * 44, Fernet.generate_key().decode()[:-2]],
    ids=["a word", "44 letters", "a key cut short"],  # the same ids in every xdist worker
)
def test_a_malformed_key_refuses_the_start_naming_the_setting_and_the_fix(tmp_path, bad):
    with pytest.raises(SettingError) as refused:
        create_app({"DATABASE": str(tmp_path / "s.sqlite"), "SECRETS_KEY": bad})
    line = str(refused.value)
    assert line.startswith("FLASK_SECRETS_KEY is not a secrets key") and "\n" not in line
    assert "secrets new-key" in line and bad not in line  # never echoed: it may be a key


@pytest.mark.backend_independent
def test_gunicorn_refuses_a_malformed_key_with_one_line(tmp_path):
    env = {"FLASK_SECRETS_KEY": "notakey", "PATH": "/usr/bin:/bin"}
    result = Gunicorn(tmp_path / "g.sqlite", env=env, inherit_env=False).run_to_exit(timeout=30)
    assert result.code == 1
    [line] = result.error_lines()
    assert line.startswith("error: cannot start: FLASK_SECRETS_KEY is not a secrets key")
    assert "Traceback" not in result.stderr


def test_a_missing_key_file_refuses_the_start_while_sealed_values_exist(
    app, api, runner, tmp_path, monkeypatch
):
    monkeypatch.setattr(app, "instance_path", str(tmp_path))
    with app.app_context():
        assert key_problem(app) is None  # nothing sealed yet
    hook(api)  # its secret sealed: the key file is made
    assert (tmp_path / "secrets.key").exists()
    with app.app_context():
        assert key_problem(app) is None
    (tmp_path / "secrets.key").unlink()  # lost
    with app.app_context():
        problem = key_problem(app)
    assert problem.startswith(f"{tmp_path / 'secrets.key'} is missing, and the database holds")
    assert "restore the file from your backup" in problem and "\n" not in problem
    result = runner.invoke(args=["dispatch", "--seconds", "0.2"])
    assert result.exit_code == 1 and "secrets.key is missing" in result.output
    assert not (tmp_path / "secrets.key").exists()  # never replaced by a new key
    (tmp_path / "secrets.key").write_text("not a key")
    with app.app_context():
        assert "does not hold a secrets key" in key_problem(app)


def test_a_new_installations_key_is_made_once_by_requests_sealing_at_once(
    app, api, tmp_path, monkeypatch
):
    """The threads of one gthread worker sealing their first secrets at once
    on a new installation make one key file between them, and leave nothing
    else behind."""
    instance = tmp_path / "instance"
    instance.mkdir()
    monkeypatch.setattr(app, "instance_path", str(instance))
    start = threading.Barrier(8, timeout=60)

    def create(i):
        client = app.test_client()
        start.wait()
        body = {"url": f"{HOOK_URL}/{i}", "events": ["post.failed"]}
        return client.post(HOOKS, json=body, headers={"X-API-Key": api.key})

    answers = together(create, 8)
    assert [r.status_code for r in answers] == [201] * 8, [r.get_json() for r in answers]
    assert [p.name for p in instance.iterdir()] == ["secrets.key"]
    with app.app_context():
        assert key_problem(app) is None


# --- a key that cannot open what is stored -------------------------------------------------------


def test_a_delivery_whose_secret_cannot_be_opened_fails_saying_why(app, api, runner):
    endpoint = hook(api)
    r = api.post(PING, json={"webhook_id": endpoint["id"]})
    assert r.status_code == 202
    another_key(app)
    result = runner.invoke(args=["dispatch", "--seconds", "0.5"])
    assert result.exit_code == 0, result.output
    [delivery] = api.get(DELIVERIES).get_json()["data"]
    assert delivery["outcome"] == "failed", delivery
    assert "cannot read a stored secret" in delivery["last_error"]
    assert "rotate_secret" in delivery["last_error"]


def test_disconnecting_a_channel_whose_token_cannot_be_opened_is_never_a_500(app, api, linkedin):
    channel(api)
    connect(api, linkedin, "personal")
    another_key(app)
    r = api.client.delete(CONNECT + "personal", headers={"X-API-Key": api.key})
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["connection"]["status"] == "revoked"
    assert api.get(CHANNEL + "personal").get_json()["publisher"] == "automation"


# --- flask secrets rotate ----------------------------------------------------------------------


def sealed_values(app):
    with app.app_context(), transaction():
        return {
            (table, column): row[column]
            for table in sealed_store.SEALED
            for row in sealed_store.locked_rows(table)
            for column in sealed_store.SEALED[table][1]
            if row[column] is not None
        }


def test_rotate_seals_every_secret_and_token_again_under_a_new_key(
    app, api, runner, linkedin, tmp_path, monkeypatch
):
    monkeypatch.setattr(app, "instance_path", str(tmp_path))
    endpoint = hook(api)
    channel(api)
    connect(api, linkedin, "personal")
    old_key = (tmp_path / "secrets.key").read_bytes()
    before = sealed_values(app)
    assert len(before) == 3  # the endpoint's secret, the access and the refresh token
    result = runner.invoke(args=["secrets", "rotate"])
    assert result.exit_code == 0, result.output
    assert "re-sealed 3 secrets and tokens" in result.output
    new_key = (tmp_path / "secrets.key").read_bytes()
    assert new_key != old_key and (tmp_path / "secrets.key.old").read_bytes() == old_key
    assert not (tmp_path / "secrets.key.new").exists()
    after = sealed_values(app)
    for place, sealed in after.items():
        assert Fernet(new_key).decrypt(sealed.encode()) == Fernet(old_key).decrypt(
            before[place].encode()
        ), place
    # The service reads them with the new key: a ping is signed, a disconnect revokes.
    with app.app_context():
        assert (
            sealing.unseal(after[("webhook_endpoints", "secret")])
            == Fernet(old_key).decrypt(before[("webhook_endpoints", "secret")].encode()).decode()
        )
    r = api.client.delete(CONNECT + "personal", headers={"X-API-Key": api.key})
    assert r.status_code == 200
    assert any(r.path == "/oauth/v2/revoke" for r in linkedin.received)
    assert endpoint["id"]


def test_rotate_changes_nothing_when_a_value_cannot_be_opened(
    app, api, runner, tmp_path, monkeypatch
):
    monkeypatch.setattr(app, "instance_path", str(tmp_path))
    hook(api)
    another_key(app)  # the key in force did not seal it
    hook(api)
    before = sealed_values(app)
    result = runner.invoke(args=["secrets", "rotate", "--new-key-file", str(tmp_path / "next.key")])
    assert result.exit_code == 1 and "nothing was changed: cannot read a stored secret" in (
        result.output
    )
    assert sealed_values(app) == before
    assert not (tmp_path / "next.key").exists()


def test_rotate_with_the_key_in_a_setting_writes_the_new_key_where_it_is_told(
    app, api, runner, tmp_path
):
    another_key(app)
    hook(api)
    refused = runner.invoke(args=["secrets", "rotate"])
    assert refused.exit_code == 1 and "--new-key-file" in refused.output
    target = tmp_path / "next.key"
    result = runner.invoke(args=["secrets", "rotate", "--new-key-file", str(target)])
    assert result.exit_code == 0, result.output
    assert f"FLASK_SECRETS_KEY_FILE={target}" in result.output
    assert target.stat().st_mode & 0o077 == 0
    [sealed] = sealed_values(app).values()
    assert Fernet(target.read_bytes()).decrypt(sealed.encode()).startswith(b"whsec_")
    again = runner.invoke(args=["secrets", "rotate", "--new-key-file", str(target)])
    assert again.exit_code == 1 and "exists already" in again.output
