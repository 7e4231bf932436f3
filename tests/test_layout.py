"""The import rules of README "Layout", checked on the source.

A rule that only lives in a README drifts; these fail when a part imports
what its row of the Layout table does not allow, a domain module starts
reading the request, SQL leaks out of store/, or a test or tool starts a
server or sends a request without the harness.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOMAIN = ["publishing.py", "article_rules.py", "webhook_rules.py", "events.py", "idempotency.py"]
APP_MODULES = {
    "accesslog",
    "apidoc",
    "app",
    "article_rules",
    "auth",
    "backup_cli",
    "blueprints",
    "copy_cli",
    "dispatcher",
    "errors",
    "events",
    "gunicorn_worker",
    "idempotency",
    "keys_cli",
    "limits",
    "logs",
    "metrics",
    "outbound",
    "publishing",
    "schemas",
    "settings",
    "store",
    "timestamps",
    "webhook_rules",
    "webhook_secrets",
    "webhooks_cli",
    "wsgi",
}
DRIVERS = {"sqlite3", "psycopg", "psycopg_pool"}

# README "Layout", row by row: the service's own modules each part may
# import (besides itself). Every Python file of the service is in one row.
DOMAIN_MODULES = {m.removesuffix(".py") for m in DOMAIN}
ANYTHING = APP_MODULES
LAYOUT = {
    ("app.py", "wsgi.py", "settings.py", "gunicorn.conf.py"): ANYTHING,
    ("blueprints/*.py",): DOMAIN_MODULES
    | {"schemas", "store", "auth", "apidoc", "errors", "metrics", "timestamps", "blueprints"},
    ("apidoc.py",): {"schemas", "blueprints"},
    ("auth.py",): {"store", "errors", "logs", "metrics", "timestamps"},
    tuple(DOMAIN): DOMAIN_MODULES
    | {"store", "schemas", "errors", "timestamps", "outbound", "webhook_secrets"},
    ("schemas/*.py",): {"timestamps", "events"},
    ("store/*.py",): set(),
    ("dispatcher.py", "outbound.py", "webhook_secrets.py"): DOMAIN_MODULES
    | {"store", "schemas", "logs", "timestamps", "outbound", "webhook_secrets"},
    ("keys_cli.py", "webhooks_cli.py", "copy_cli.py", "backup_cli.py"): DOMAIN_MODULES
    | {"store", "schemas", "auth", "errors", "timestamps", "outbound", "webhook_secrets"}
    | {"keys_cli", "webhooks_cli", "copy_cli", "backup_cli"},
    ("accesslog.py", "gunicorn_worker.py", "limits.py", "errors.py"): {"errors", "logs", "store"},
    ("logs.py", "timestamps.py"): set(),
    ("metrics.py",): {"store"},
}


def imports(path):
    """(module, names) of every import in a file, e.g. ("flask", {"g"})."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, set()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.module, {alias.name for alias in node.names}))
    return found


def top(module):
    return module.split(".")[0]


def files(*patterns):
    return [p for pattern in patterns for p in sorted(ROOT.glob(pattern))]


def service_files():
    """Every Python file of the service: the top level and its packages."""
    return [
        p
        for p in files("*.py", "blueprints/*.py", "schemas/*.py", "store/*.py")
        if p.name != "conftest.py"
    ]


def row_of(path):
    rows = [allowed for patterns, allowed in LAYOUT.items() if path in files(*patterns)]
    assert len(rows) == 1, f"{path.relative_to(ROOT)} is in {len(rows)} rows of README Layout"
    return rows[0]


@pytest.mark.parametrize("path", service_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_part_imports_only_what_its_layout_row_allows(path):
    allowed = row_of(path)
    own = path.parent.name if path.parent != ROOT else path.stem
    for module, _ in imports(path):
        if top(module) in APP_MODULES and top(module) != own:
            assert top(module) in allowed, (
                f"{path.relative_to(ROOT)} imports {module}, which its README Layout row "
                f"does not allow ({sorted(allowed) or 'nothing of the service'})"
            )


def test_the_readme_layout_names_every_part():
    layout = README.split("## Layout", 1)[1].split("\n## ", 1)[0]
    for patterns in LAYOUT:
        for pattern in patterns:
            name = pattern.removesuffix("*.py") if "*" in pattern else pattern
            assert f"`{name}" in layout, f"README Layout does not name {name}"


# Outside harness/, nothing starts the service or speaks HTTP by itself:
# the harness's Gunicorn, FlaskCommand and Client are the one way.
OWN_SERVER = re.compile(
    r"(Popen|subprocess\.run|check_output)\(\s*\[[^\]]*[\"'](gunicorn|flask)[\"']"
)
HTTP_LIBRARIES = {"http.client", "urllib.request", "requests", "httpx", "urllib3"}


@pytest.mark.parametrize(
    "path",
    files("tests/*.py", "bench/*.py", "faults/*.py", "faults/steps/*.py"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_tests_and_tools_drive_servers_through_the_harness(path):
    assert not OWN_SERVER.search(path.read_text()), (
        f"{path.relative_to(ROOT)} starts gunicorn or flask itself: use harness"
    )
    for module, _ in imports(path):
        assert module not in HTTP_LIBRARIES, (
            f"{path.relative_to(ROOT)} imports {module}: harness.Client is the one HTTP client"
        )


@pytest.mark.parametrize("path", files(*DOMAIN), ids=lambda p: p.name)
def test_domain_modules_take_plain_values(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask", "blueprints", "auth", "apidoc"} | DRIVERS, (
            f"{path.name} imports {module}: domain rules take plain values, not the request"
        )


@pytest.mark.parametrize("path", files("schemas/*.py"), ids=lambda p: p.name)
def test_schemas_know_no_request_and_no_database(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask", "blueprints", "store"} | DRIVERS, (path.name, module)


@pytest.mark.parametrize("path", files("store/*.py"), ids=lambda p: p.name)
def test_the_store_imports_only_itself_and_its_drivers(path):
    for module, _ in imports(path):
        if top(module) in APP_MODULES:
            assert top(module) == "store", (path.name, module)
        if path.name != "db.py":  # db.py reads the settings and adds the init-db command
            assert top(module) not in {"flask", "click"}, (path.name, module)


# The modules that own connections: the facade, the two backends, and the
# tools that work on two databases or on a file at once (copy, backup).
OWN_TRANSACTIONS = {"db.py", "backend_sqlite.py", "backend_postgres.py", "copy.py"}
TRANSACTION_STATEMENTS = re.compile(r"\b(BEGIN|COMMIT|ROLLBACK)\b|\.commit\(|\.rollback\(")


@pytest.mark.parametrize("path", files("store/*.py"), ids=lambda p: p.name)
def test_store_functions_never_begin_or_commit(path):
    """README "Layout": callers choose the unit of work, never a store function."""
    if path.name in OWN_TRANSACTIONS or path.name.startswith("backup"):
        return
    code = "\n".join(
        line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
    )
    assert not TRANSACTION_STATEMENTS.search(code), (
        f"store/{path.name} ends or begins a transaction"
    )
    for _module, names in imports(path):
        assert not names & {"transaction", "snapshot"}, f"store/{path.name} opens a transaction"


@pytest.mark.parametrize("path", files(*DOMAIN), ids=lambda p: p.name)
def test_domain_rules_run_inside_their_callers_transaction(path):
    for module, names in imports(path):
        assert not (top(module) == "store" and names & {"transaction", "snapshot"}), (
            f"{path.name} opens a transaction: its caller chooses the unit of work"
        )


@pytest.mark.parametrize(
    "path",
    [p for p in files("*.py", "blueprints/*.py", "schemas/*.py") if not p.name.startswith("test")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_sql_drivers_are_used_only_in_the_store(path):
    for module, _ in imports(path):
        assert top(module) not in DRIVERS, f"{path.name} imports {module}: SQL lives in store/"


@pytest.mark.parametrize("path", files("*.py", "schemas/*.py", "store/*.py"), ids=lambda p: p.name)
def test_only_http_code_reads_flask_g(path):
    if path.name in {"auth.py"}:
        return
    for module, names in imports(path):
        assert not (module == "flask" and "g" in names), f"{path.name} reads flask.g"


@pytest.mark.parametrize("path", files("harness/*.py"), ids=lambda p: p.name)
def test_the_harness_drives_the_service_from_outside(path):
    for module, _ in imports(path):
        assert top(module) not in APP_MODULES, (
            f"harness/{path.name} imports {module}: use the HTTP API or the CLI"
        )
