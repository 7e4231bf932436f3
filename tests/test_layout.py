"""The import rules of README "Layout", checked on the source.

A rule that only lives in a README drifts; these fail when a domain module
starts reading the request, SQL leaks out of store/, or the harness reaches
into the app instead of using its HTTP interface.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = ["publishing.py", "article_rules.py", "webhook_rules.py", "events.py", "idempotency.py"]
APP_MODULES = {
    "accesslog",
    "apidoc",
    "app",
    "article_rules",
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
