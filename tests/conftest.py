import pytest
from flask.testing import FlaskClient

from app import create_app
from auth import SCOPES
from store.db import dispose_db, init_db

# The browser tests' `browser` and `page` fixtures (tests/browser_support.py),
# for every test file; a test that does not ask for them starts no browser.
pytest_plugins = ["tests.browser_support"]


class ClosingClient(FlaskClient):
    """Reads and closes every response, as a server does after sending it,
    so work scheduled with call_on_close (last_used_at) runs."""

    def open(self, *args, **kwargs):
        kwargs.setdefault("buffered", True)
        return super().open(*args, **kwargs)


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.sqlite")})
    app.test_client_class = ClosingClient
    with app.app_context():
        init_db()
    yield app
    with app.app_context():
        dispose_db()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def make_key(runner):
    """Create a key through the CLI, as an operator would; returns the plain key."""

    def make(user="alice", scopes=SCOPES, expires_at=None):
        args = ["keys", "create", "--user", user]
        for scope in scopes:
            args += ["--scope", scope]
        if expires_at:
            args += ["--expires-at", expires_at]
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output
        return result.output.strip().splitlines()[-1]

    return make


@pytest.fixture
def key(make_key):
    """alice's key with every scope."""
    return make_key()


@pytest.fixture
def api(client, key):
    """The test client with alice's key on every request."""
    return Caller(client, key)


class Caller:
    """Test client wrapper that sends one key and speaks JSON."""

    def __init__(self, client, key):
        self.client = client
        self.key = key

    def _headers(self, headers):
        return {"X-API-Key": self.key, **(headers or {})}

    def get(self, path, headers=None, **kw):
        return self.client.get(path, headers=self._headers(headers), **kw)

    def post(self, path, json=None, headers=None, **kw):
        return self.client.post(path, json=json, headers=self._headers(headers), **kw)

    def patch(self, path, json=None, headers=None, **kw):
        return self.client.patch(path, json=json, headers=self._headers(headers), **kw)


@pytest.fixture
def caller(client, make_key):
    """Build a Caller for a new key: caller('bob', scopes=[...])."""

    def make(user="alice", scopes=SCOPES, **kw):
        return Caller(client, make_key(user, scopes, **kw))

    return make


def assert_error(response, status, code):
    """Every error has the same envelope."""
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]
