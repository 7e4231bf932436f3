"""Fixtures of the whole suite.

The `app` fixture, and every test built on it (`client`, `api`, `caller`,
`runner`, ...), runs once on SQLite and once on PostgreSQL: each test on a
database of its own (a new SQLite file; an emptied schema on the test
server, TEST_DATABASE_URL). Without a reachable PostgreSQL server the second
half skips with the reason, except under CI=true, where it fails. A test
that is about SQLite itself carries `@pytest.mark.sqlite_only`; a test of
input refused before the store is reached (a BAD_* table, a malformed
header), or of what no store shapes (the OpenAPI document), carries
`@pytest.mark.backend_independent` and runs on SQLite only too, because its
PostgreSQL half would repeat the same code path.

Kinds of test, marked here from what each test uses (pytest_collection_modifyitems),
so that a developer can run one kind alone (`-m browser`, `-m live`):
`browser`, a test that drives Chromium (the `browser` or `page` fixture),
which runs once more if it fails (BROWSER_RERUNS);
`live`, a test that starts a real server process (gunicorn, the MCP server
over HTTP, nginx), found from its fixtures and the functions of its module
they call, and checked when it runs: a server started by a test without the
mark fails it. The PostgreSQL half of a live test runs in `make test` only in
a module marked `both_backends`, where what is proven is the store's locking
(races, claims, several dispatchers); elsewhere it is marked `slow` (`make
test-slow`), since the in-process tests run on both backends. And the
modules start longest first (tests/module_seconds.txt), so that pytest-xdist,
which hands out modules in collection order, does not start the longest last.
"""

import atexit
import collections
import contextlib
import copy
import functools
import importlib
import inspect
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import types
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from argon2 import PasswordHasher
from argon2 import profiles as argon2_profiles
from flask.testing import FlaskClient

from content_publishing import settings, timestamps
from content_publishing.accounts import passwords
from content_publishing.app import create_app
from content_publishing.auth import SCOPES
from content_publishing.store.db import dispose_db, init_db, is_postgres
from harness import flask_cli, postgres, serve
from tests.system import unavailable

BACKENDS = ("sqlite", "postgresql")


def pytest_addoption(parser):
    parser.addoption(
        "--module-seconds",
        metavar="FILE",
        help="write each test module's seconds (its tests' setup, call and teardown) "
        "to FILE, as tests/module_seconds.txt holds them",
    )


_module_time = collections.Counter()
_first_failures = []  # (test, its failure) of each browser test run again (BROWSER_RERUNS)


def pytest_runtest_logreport(report):
    _module_time[Path(report.nodeid.split("::")[0]).stem] += report.duration
    if report.outcome == "rerun":
        _first_failures.append((report.nodeid, report.longreprtext))


def pytest_terminal_summary(terminalreporter):
    """How each browser test that was run again failed the first time: the
    summary's RERUN line names it, and this says what to mend."""
    for nodeid, failure in _first_failures:
        terminalreporter.write_sep("-", f"first failure of {nodeid}")
        terminalreporter.write_line(_where_and_why(failure))


def _where_and_why(failure):
    """The lines of a failure that name the tests' own files (where it
    stopped; a Playwright timeout's own frames would fill the end), then its
    last 15 (why)."""
    lines = failure.splitlines()
    where = [line for line in lines[:-15] if line.startswith("tests/")]
    return "\n".join([*where, *lines[-15:]])


def pytest_sessionfinish(session):
    """--module-seconds: in the process that runs the session (under
    pytest-xdist the workers' reports arrive there too)."""
    path = session.config.getoption("module_seconds")
    if path and _module_time and not hasattr(session.config, "workerinput"):
        lines = [f"{name} {seconds:.1f}" for name, seconds in _module_time.most_common()]
        Path(path).write_text(MODULE_SECONDS_HEADER + "\n".join(lines) + "\n")


def pytest_configure(config):
    importlib.import_module("harness.flask_cli").run_setup_command = setup_command_in_process
    process = importlib.import_module("harness.process").Process
    process.launch = _launch_checked(process.launch)
    config.addinivalue_line("markers", "sqlite_only: runs on the SQLite backend only")
    config.addinivalue_line("markers", "fresh_app: changes the app itself; gets one of its own")
    config.addinivalue_line(
        "markers",
        "backend_independent: refused before the store, or shaped by none; runs on SQLite only",
    )


def _one_backend(item):
    return item.get_closest_marker("sqlite_only") or item.get_closest_marker("backend_independent")


# Fixtures that mean a browser, or a real server, whatever else the test does.
BROWSER_FIXTURES = {"browser", "page"}

# A browser test that fails runs once more (pytest-rerunfailures), in a
# fresh page: on a loaded machine a page can still be drawing what a test
# reads, most flakes seen in full runs were such a miss, and one failed test
# fails the whole CI run. A test that fails twice fails, and every rerun is
# listed in the summary ("rerun test summary info", and "1 rerun" on the
# last line) after the end of its first failure (pytest_terminal_summary),
# so that a flake is seen and mended, not hidden. Only browser tests: a
# race or a store rule that fails once is a finding.
BROWSER_RERUNS = 1
LIVE_FIXTURES = {"live_backend", "live_database", "dashboard_gunicorn"} | BROWSER_FIXTURES
# The names that start a real server (harness.serve, Gunicorn, ...), with the
# tests' own helpers that do (tests/conftest.py, tests/*_support.py).
STARTS_SERVER = {
    "serve",
    "Gunicorn",
    "McpHttpServer",
    "Nginx",
    "live_server",
    "dashboard_server",
    "dispatch_server",
}
_starts = {}


def _names(code):
    """The global and attribute names `code` and the functions in it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _starts_a_server(func):
    """True if `func` uses a name of STARTS_SERVER, or a function of the
    tests (in tests/) that does, however deep."""
    code = getattr(inspect.unwrap(func), "__code__", None)
    if code is None:
        return False
    if code not in _starts:
        _starts[code] = False  # while it is looked at: a function that calls itself
        names = _names(code)
        found = (inspect.unwrap(func).__globals__.get(name) for name in names)
        _starts[code] = bool(names & STARTS_SERVER) or any(
            inspect.isfunction(f) and f.__module__.startswith("tests.") and _starts_a_server(f)
            for f in found
        )
    return _starts[code]


def _is_live(item):
    names = set(item.fixturenames)
    if names & LIVE_FIXTURES or item.get_closest_marker("live"):
        return True
    funcs = [item.function]
    for name in names:
        funcs += [d.func for d in item._fixtureinfo.name2fixturedefs.get(name, ())]
    return any(_starts_a_server(func) for func in funcs)


MODULE_SECONDS_HEADER = """\
# Seconds each test module kept a pytest process busy (its tests' setup, call
# and teardown), longest first: tests/conftest.py starts the longest modules
# first. Written by `make test ARGS="--module-seconds=tests/module_seconds.txt"`
# (docs/performance.md); a module not listed counts as the median.
"""


def _module_seconds():
    """Each module's measured seconds (tests/module_seconds.txt): how long it
    keeps one pytest process busy."""
    seconds = {}
    for line in (Path(__file__).parent / "module_seconds.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split()
            seconds[name] = float(value)
    return seconds


@pytest.hookimpl(tryfirst=True)  # before -m chooses by marks
def pytest_collection_modifyitems(config, items):
    """Marks each test's kind (browser, live; the PostgreSQL half of a live
    test outside a both_backends module is slow); drops the PostgreSQL half
    of a sqlite_only or backend_independent test, which has none to run;
    then puts the modules in order, longest first, each module's tests kept
    in the order pytest gave them (its module-scoped servers set up once)."""
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec else {}
        backend = params.get("backend") or params.get("live_backend")
        if backend == "postgresql" and _one_backend(item):
            drop.append(item)
            continue
        keep.append(item)
        if set(item.fixturenames) & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))
        if _is_live(item):
            item.add_marker(pytest.mark.live)
            if backend == "postgresql" and not item.get_closest_marker("both_backends"):
                item.add_marker(pytest.mark.slow)
    if drop:
        config.hook.pytest_deselected(items=drop)
    seconds = _module_seconds()
    default = sorted(seconds.values())[len(seconds) // 2] if seconds else 0.0
    modules = {}
    for item in keep:
        modules.setdefault(item.path.stem, []).append(item)
    order = sorted(modules, key=lambda name: -seconds.get(name, default))  # stable
    items[:] = [item for name in order for item in modules[name]]


# The test running now, for the check that only a `live` test starts a server.
_running = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


# The harness's processes that are servers (the others are clients and commands).
SERVER_PROCESSES = {"Gunicorn", "McpHttpServer", "Nginx"}


def _launch_checked(launch):
    def checked(process):
        item = _running[-1] if _running else None
        if type(process).__name__ in SERVER_PROCESSES and item is not None:
            assert item.get_closest_marker("live"), (
                f"{item.nodeid} starts {process.name} but is not marked live: "
                "mark it @pytest.mark.live (or teach tests/conftest.py's STARTS_SERVER the call)"
            )
        return launch(process)

    return checked


_CLI_RUNNER = threading.Lock()  # Click's runner swaps sys.stdout while it runs


def setup_command_in_process(database, *args, env=None):
    """harness.init_database() and create_key() in the tests: `flask --app app
    ARGS` run by Click in this process, on an app made from the FLASK_
    settings the `flask` process would read (this environment and `env`, as
    from_prefixed_env parses them), instead of a process that costs 0.4 s of
    CPU to start. Same command, same RuntimeError on failure, and the same
    output, except that `init-db` of a new SQLite file copies
    new_sqlite_schema(), then runs: the copy is the migrations' work (0.3 s
    of CPU: SQLite parses the whole schema again after each of their
    statements), and the run finds it current, so it prints "Database
    ready" alone. The tests of the CLI itself run `flask`
    (harness.flask_cli, FlaskCommand); tests/test_migrations.py migrates."""
    environ = {**os.environ, **(env or {}), "FLASK_DATABASE": str(database)}
    config = {}
    for name in sorted(environ):
        if not name.startswith("FLASK_"):
            continue
        if "__" in name:  # a nested setting: leave from_prefixed_env's rules to flask
            return flask_cli(database, *args, env=env)
        value = environ[name]
        with contextlib.suppress(ValueError):
            value = json.loads(value)
        config[name.removeprefix("FLASK_")] = value
    failed = f"flask {' '.join(args)} failed: "
    with _CLI_RUNNER:  # and one command at a time on a kept app
        try:
            app = _setup_app(config, environ)
        except ValueError as e:  # settings.SettingError, as the process prints it
            raise RuntimeError(failed + str(e)) from None
        try:
            if list(args) == ["init-db"]:
                _copy_new_schema(app.config["DATABASE"])
            result = app.test_cli_runner().invoke(args=list(args))
        finally:
            with app.app_context():
                dispose_db()
    if result.exit_code != 0:
        raise RuntimeError(failed + result.output) from result.exception
    return result.stdout


# The apps of the last setup commands, by the environment they were made
# from (but the name of the test pytest is running, which changes with each
# test and phase): a server's setup runs several commands on one database
# (init-db, a key per user), and building an app costs 0.06-0.1 s of CPU.
_SETUP_APPS = collections.OrderedDict()
_SETUP_APPS_KEPT = 8


def _setup_app(config, environ):
    key = json.dumps(sorted((k, v) for k, v in environ.items() if k != "PYTEST_CURRENT_TEST"))
    if key not in _SETUP_APPS:
        _SETUP_APPS[key] = create_app(config)
        while len(_SETUP_APPS) > _SETUP_APPS_KEPT:
            _SETUP_APPS.popitem(last=False)
    _SETUP_APPS.move_to_end(key)
    return _SETUP_APPS[key]


def _copy_new_schema(path):
    """A new SQLite file for `init-db`: a copy of new_sqlite_schema(). An
    existing file, a PostgreSQL URL or a missing directory is left to the
    command."""
    if is_postgres(path) or os.path.exists(path) or not os.path.isdir(os.path.dirname(path) or "."):
        return
    shutil.copyfile(new_sqlite_schema(), path)


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashes():
    """Passwords hashed in this pytest process (the in-process tests, and the
    setup commands run in it) use argon2-cffi's CHEAPEST parameters, still
    Argon2id: a hash or a check with the service's RFC 9106 ones costs about
    0.14 s of CPU, test_accounts' share of that was 19 of its 21 CPU-s, and
    what the in-process tests prove is the rules, not the cost. A hash
    carries its parameters, so a server checks these as cheaply. Every
    server a test starts hashes with the service's own parameters, and
    test_dashboard_accounts checks them in the hash a real gunicorn stored."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            passwords, "_hasher", PasswordHasher.from_parameters(argon2_profiles.CHEAPEST)
        )
        passwords._nothing.cache_clear()  # the hash of nothing, made anew with these
        yield
    passwords._nothing.cache_clear()


@pytest.fixture(scope="session")
def postgres_url():
    """A schema of this session on the test server, with our tables."""
    problem = postgres.reachable()
    if problem:
        unavailable(f"no PostgreSQL at {postgres.base_url()} ({problem})", "the PostgreSQL tests")
    with postgres.fresh_database(prefix="tests") as url:
        app = create_app({"TESTING": True, "DATABASE": url})
        with app.app_context():
            init_db()
            dispose_db()
        yield url


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture(scope="module", params=BACKENDS)
def live_backend(request):
    """For tests against real gunicorn: which backend the module's server uses."""
    return request.param


@contextlib.contextmanager
def live_database_for(live_backend):
    """None (serve() makes a SQLite file) or the URL of a fresh PostgreSQL schema."""
    if live_backend == "sqlite":
        yield None
        return
    problem = postgres.reachable()
    if problem:
        unavailable(f"no PostgreSQL at {postgres.base_url()} ({problem})", "the PostgreSQL tests")
    with postgres.fresh_database(prefix="live") as url:
        yield url


@contextlib.contextmanager
def live_server(tmp_path_factory, live_backend, name, **serve_options):
    """gunicorn on a fresh database of `live_backend`, for one test module's
    `server` fixture; `serve_options` go to harness.serve (workers, env, ...)."""
    tmp = tmp_path_factory.mktemp(name)
    with live_database_for(live_backend) as database:
        with serve(tmp, database=database, **serve_options) as server:
            yield server


@pytest.fixture(scope="session")
def dashboard_gunicorn(tmp_path_factory):
    """One gunicorn of this pytest process for the dashboard's browser modules
    (tests/dashboard_support.py's SERVER_ENV, on SQLite; media URLs on its
    own origin, since gunicorn sets FLASK_PUBLIC_URL to the address it
    bound), instead of one per module: a start costs two workers' imports.
    They share the server, never a workspace: each test makes a user of its
    own (new_user), who is a workspace of their own."""
    from tests.dashboard_support import dashboard_server

    with dashboard_server(tmp_path_factory) as server:
        yield server


@pytest.fixture
def live_database(live_backend):
    """A database of this test's own for `serve(..., database=live_database)`."""
    with live_database_for(live_backend) as url:
        yield url


@pytest.fixture(scope="session")
def postgres_emptier(postgres_url):
    """empty() -> the session's schema emptied, on a connection kept for the
    session (a new one per test cost the server more than the emptying)."""
    kept = []

    def empty():
        if not kept or kept[0].closed or kept[0].broken:
            kept[:] = [psycopg.connect(postgres_url, autocommit=True)]
        postgres.empty(postgres_url, kept[0])

    yield empty
    for conn in kept:
        conn.close()


@pytest.fixture
def database(request, backend, tmp_path):
    """FLASK_DATABASE of a new, empty database on `backend`."""
    if backend == "sqlite":
        return str(tmp_path / "test.sqlite")
    request.getfixturevalue("postgres_emptier")()
    return request.getfixturevalue("postgres_url")


# The browser tests' `browser` and `page` fixtures (tests/browser_support.py),
# for every test file; a test that does not ask for them starts no browser.
pytest_plugins = ["tests.browser_support"]


class ClosingClient(FlaskClient):
    """Reads and closes every response, as a server does after sending it,
    so work scheduled with call_on_close (last_used_at) runs."""

    def open(self, *args, **kwargs):
        kwargs.setdefault("buffered", True)
        return super().open(*args, **kwargs)


def _new_app(database):
    app = create_app({"TESTING": True, "DATABASE": database})
    app.test_client_class = ClosingClient
    return app


def _shape(app):
    """What a test must not change on a shared app: routes, hooks, handlers."""
    hooks = (
        app.before_request_funcs,
        app.after_request_funcs,
        app.teardown_request_funcs,
        app.url_value_preprocessors,
        app.url_default_functions,
        app.template_context_processors,
    )
    return (
        app.wsgi_app,
        len(app.view_functions),
        len(list(app.url_map.iter_rules())),
        tuple(app.blueprints),
        len(app.teardown_appcontext_funcs),
        tuple(sum(map(len, hook.values())) for hook in hooks),
        sum(
            len(by_class)
            for scope in app.error_handler_spec.values()
            for by_class in scope.values()
        ),
    )


@functools.cache
def new_sqlite_schema():
    """An SQLite file as init_db leaves a new one, made once per pytest
    process (in a directory of its own, removed at exit). The `app` fixture
    copies it for each SQLite test (0.2 ms) instead of running init_db on a
    new file (3-6 ms of CPU, and fsyncs), and so does a server's `init-db`
    (setup_command_in_process)."""
    directory = tempfile.mkdtemp(prefix="new-schema-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = Path(directory) / "new.sqlite"
    app = _new_app(str(path))
    with app.app_context():
        init_db()
        dispose_db()
    return path


# backend -> (app, its config and extensions as create_app left them, _shape)
_SHARED_APPS = {}


@pytest.fixture
def app(request, backend, database):
    """The app on this test's new database. Building one costs 12 ms of CPU
    (werkzeug compiles 42 URL rules), so each pytest process builds one per
    backend and gives it to every test, reset first: its config and
    app.extensions back to what create_app made (tests change settings on
    the live app; the store keeps its backend and connections in
    extensions["store"]), DATABASE this test's (on SQLite a copy of
    new_sqlite_schema(), as init_db would make it). A test that changes the app
    itself (adds a route) is marked `fresh_app` and gets one of its own; a
    shared app found changed after a test is not shared again."""
    shared = not request.node.get_closest_marker("fresh_app")
    if not shared:
        app = _new_app(database)
    else:
        if backend not in _SHARED_APPS:
            app = _new_app(database)
            _SHARED_APPS[backend] = (
                app,
                copy.deepcopy(dict(app.config)),
                dict(app.extensions),
                _shape(app),
            )
        app, config, extensions, shape = _SHARED_APPS[backend]
        app.config.clear()
        app.config.update(copy.deepcopy(config))
        app.config["DATABASE"] = settings.database(database, app.instance_path)
        app.extensions.clear()
        app.extensions.update(extensions)
    if backend == "sqlite" and not os.path.exists(database):
        shutil.copyfile(new_sqlite_schema(), database)
    else:
        with app.app_context():
            init_db()
    yield app
    with app.app_context():
        dispose_db()
    if shared and _shape(app) != shape:
        del _SHARED_APPS[backend]


@pytest.fixture
def stored(backend, database):
    """stored() -> everything the database holds, as bytes (files and all):
    to prove what it does not hold."""

    def read():
        if backend == "postgresql":
            return postgres.dump_text(database).encode()
        path = Path(database)
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))

    return read


@pytest.fixture
def count_rows(backend, database):
    """count_rows(table) -> its number of rows, read straight from the database."""

    def count(table):
        if backend == "postgresql":
            with psycopg.connect(database) as conn:
                return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        with sqlite3.connect(database) as conn:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    return count


class Clock:
    """The service's clock (`content_publishing.timestamps.now`), moved on by
    a test instead of sleeping. It moves the in-process service only: a
    gunicorn server started by a test keeps the wall clock."""

    def __init__(self, monkeypatch):
        self.offset = timedelta(0)
        real = timestamps.now
        monkeypatch.setattr(timestamps, "now", lambda: real() + self.offset)

    def advance(self, seconds):
        self.offset += timedelta(seconds=seconds)

    def wait_past(self, moment):
        """Move on until the RFC 3339 `moment` has just passed."""
        remaining = (timestamps.parse(moment) - timestamps.now()).total_seconds()
        if remaining >= 0:
            self.advance(remaining + 0.001)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


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


def together(work, count):
    """`work(i)` for each i below `count`, each in a thread of its own (the
    racers of a test that meet at a threading.Barrier with a timeout); their
    results in order. A thread's own error is raised here, in the test,
    rather than left in a thread the test would wait on for ever; the
    BrokenBarrierError of the threads that gave up waiting for it only when
    no thread raised anything else."""
    with ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(work, i) for i in range(count)]
    errors = [future.exception() for future in futures if future.exception()]
    if errors:
        raise next(
            (e for e in errors if not isinstance(e, threading.BrokenBarrierError)), errors[0]
        )
    return [future.result() for future in futures]


def assert_error(response, status, code):
    """Every error has the same envelope."""
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]
