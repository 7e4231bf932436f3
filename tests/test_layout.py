"""The import rules of docs/layout.md, checked on the source.

A rule that only lives in a document drifts; these fail when a part imports
what its row of the layout table does not allow, a domain module starts
reading the request, SQL leaks out of the store, a view writes an event, or
a test or tool starts a server or sends a request without the harness.
"""

import ast
import re

import pytest

from harness import ROOT

LAYOUT_DOC = (ROOT / "docs" / "layout.md").read_text()
PACKAGE = ROOT / "content_publishing"
DRIVERS = {"sqlite3", "psycopg", "psycopg_pool"}

# The parts of the service, as docs/layout.md names them: a module of the
# package by its dotted name below content_publishing (store, schemas and cli
# count as one part each), blueprints, and the root shims.
DOMAIN_MODULES = {
    "articles",
    "history",
    "idempotency",
    "linkedin",
    "media",
    "webhooks.rules",
    "webhooks.events",
}
DOMAIN_PACKAGES = {"posts", "planning"}  # packages of domain modules
DOMAIN = DOMAIN_MODULES | DOMAIN_PACKAGES
WEBHOOKS = {"webhooks.rules", "webhooks.events", "webhooks.sender", "webhooks.secrets"}
WEBHOOKS |= {"webhooks.dispatcher"}
ANYTHING = None

# docs/layout.md, row by row: the parts each file may import (besides its own).
LAYOUT = {
    (
        "app.py",
        "wsgi.py",
        "gunicorn.conf.py",
        "content_publishing/app.py",
        "content_publishing/wsgi.py",
        "content_publishing/settings.py",
    ): ANYTHING,
    ("content_publishing/__init__.py",): set(),
    ("blueprints/*.py",): DOMAIN
    | {"schemas", "store", "auth", "errors", "serving.metrics", "timestamps", "content_publishing"},
    ("blueprints/apidoc.py",): {"schemas"},
    ("content_publishing/auth.py",): {"store", "errors", "logs", "serving.metrics", "timestamps"},
    (
        *(f"content_publishing/{m.replace('.', '/')}.py" for m in sorted(DOMAIN_MODULES)),
        *(f"content_publishing/{p}/*.py" for p in sorted(DOMAIN_PACKAGES)),
    ): DOMAIN | {"store", "schemas", "errors", "timestamps", "webhooks.sender", "webhooks.secrets"},
    ("content_publishing/schemas/*.py",): {"timestamps"},
    ("content_publishing/store/*.py", "content_publishing/store/backup/*.py"): set(),
    (
        "content_publishing/webhooks/dispatcher.py",
        "content_publishing/webhooks/sender.py",
        "content_publishing/webhooks/secrets.py",
    ): DOMAIN | {"store", "schemas", "logs", "timestamps", "webhooks.sender", "webhooks.secrets"},
    ("content_publishing/cli/*.py",): DOMAIN
    | WEBHOOKS
    | {"store", "schemas", "auth", "errors", "timestamps"},
    (
        "content_publishing/serving/accesslog.py",
        "content_publishing/serving/worker.py",
        "content_publishing/serving/limits.py",
        "content_publishing/errors.py",
    ): {"errors", "logs", "store"},
    ("content_publishing/logs.py", "content_publishing/timestamps.py"): set(),
    ("content_publishing/serving/metrics.py",): {"store"},
}
PACKAGE_INITS = {
    "content_publishing/webhooks/__init__.py",
    "content_publishing/serving/__init__.py",
}
PACKAGE_INITS |= {"content_publishing/cli/__init__.py"}


def module_exists(dotted):
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imports(path):
    """(module, names) of every import in a file, e.g. ("flask", {"g"}); an
    import of a module from its package (`from content_publishing import
    posts`) is named by the module itself."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, set()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = {alias.name for alias in node.names}
            modules = {n for n in names if module_exists(f"{node.module}.{n}")}
            found += [(f"{node.module}.{n}", set()) for n in sorted(modules)]
            if names - modules:
                found.append((node.module, names - modules))
    return found


def part(module):
    """The part of the service a module belongs to, or None for another package."""
    if module in ("app", "wsgi"):
        return module
    if module == "blueprints" or module.startswith("blueprints."):
        return "blueprints"
    if module != "content_publishing" and not module.startswith("content_publishing."):
        return None
    names = module.split(".")[1:]
    if not names:
        return "content_publishing"
    if names[0] in ("webhooks", "serving") and len(names) > 1:
        return ".".join(names[:2])
    return names[0]


def top(module):
    return module.split(".")[0]


def files(*patterns):
    return [p for pattern in patterns for p in sorted(ROOT.glob(pattern))]


def service_files():
    """Every Python file of the service: the root shims, blueprints, the package."""
    return [
        p
        for p in files("*.py", "blueprints/*.py", "content_publishing/**/*.py")
        if str(p.relative_to(ROOT)) not in PACKAGE_INITS
    ]


def row_of(path):
    matching = [
        (patterns, allowed) for patterns, allowed in LAYOUT.items() if path in files(*patterns)
    ]
    # A row that names the file itself wins over a row with a wildcard
    # (blueprints/apidoc.py over blueprints/*.py).
    exact = [m for m in matching if str(path.relative_to(ROOT)) in m[0]]
    rows = exact or matching
    assert len(rows) == 1, f"{path.relative_to(ROOT)} is in {len(rows)} rows of docs/layout.md"
    return rows[0][1]


def own_part(path):
    relative = path.relative_to(ROOT).with_suffix("")
    return part(".".join(relative.parts).removesuffix(".__init__"))


@pytest.mark.parametrize("path", service_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_part_imports_only_what_its_layout_row_allows(path):
    allowed = row_of(path)
    if allowed is ANYTHING:
        return
    own = own_part(path)
    for module, _ in imports(path):
        found = part(module)
        if found is not None and found != own:
            assert found in allowed, (
                f"{path.relative_to(ROOT)} imports {module}, which its docs/layout.md row "
                f"does not allow ({sorted(allowed) or 'nothing of the service'})"
            )


def test_the_layout_document_names_every_part():
    table = LAYOUT_DOC.split("## What each part may import", 1)[1]
    for patterns in LAYOUT:
        for pattern in patterns:
            name = pattern.removesuffix("*.py") if "*" in pattern else pattern
            assert f"`{name}" in table, f"docs/layout.md does not name {name}"


SYS_PATH_EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend|remove)|\[|\+=|=)")


def test_no_module_edits_sys_path():
    for path in files("*.py", "blueprints/*.py", "content_publishing/**/*.py", "harness/*.py"):
        assert not SYS_PATH_EDIT.search(path.read_text()), (
            f"{path.relative_to(ROOT)} edits sys.path"
        )


@pytest.mark.parametrize("path", files("blueprints/*.py"), ids=lambda p: p.name)
def test_no_view_writes_an_event(path):
    """A change and its event are written by one domain function."""
    for module, _ in imports(path):
        assert module not in {
            "content_publishing.webhooks.events",
            "content_publishing.store.outbox",
        }, f"blueprints/{path.name} imports {module}: events are the domain's to write"


def test_only_the_shims_and_tool_settings_stay_at_the_root():
    assert {p.name for p in ROOT.glob("*.py")} == {"app.py", "wsgi.py", "gunicorn.conf.py"}


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


DOMAIN_FILES = [PACKAGE / f"{m.replace('.', '/')}.py" for m in sorted(DOMAIN_MODULES)]
DOMAIN_FILES += [f for p in sorted(DOMAIN_PACKAGES) for f in sorted((PACKAGE / p).glob("*.py"))]


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.name)
def test_domain_modules_take_plain_values(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask", "blueprints"} | DRIVERS and part(module) != "auth", (
            f"{path.name} imports {module}: domain rules take plain values, not the request"
        )


@pytest.mark.parametrize("path", files("content_publishing/schemas/*.py"), ids=lambda p: p.name)
def test_schemas_know_no_request_and_no_database(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask", "blueprints"} | DRIVERS, (path.name, module)
        assert part(module) != "store", (path.name, module)


STORE_FILES = files("content_publishing/store/*.py", "content_publishing/store/backup/*.py")


@pytest.mark.parametrize("path", STORE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_store_imports_only_itself_and_its_drivers(path):
    for module, _ in imports(path):
        if part(module) is not None:
            assert part(module) == "store", (path.name, module)
        if path.name != "db.py":  # db.py reads the settings and adds the init-db command
            assert top(module) not in {"flask", "click"}, (path.name, module)


# The modules that own connections: the facade, the two backends, and the
# tools that work on two databases or on a file at once (copy, backup).
OWN_TRANSACTIONS = {"db.py", "backend_sqlite.py", "backend_postgres.py", "copy.py"}
TRANSACTION_STATEMENTS = re.compile(r"\b(BEGIN|COMMIT|ROLLBACK)\b|\.commit\(|\.rollback\(")


@pytest.mark.parametrize("path", STORE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_store_functions_never_begin_or_commit(path):
    """docs/layout.md: callers choose the unit of work, never a store function."""
    if path.name in OWN_TRANSACTIONS or path.parent.name == "backup":
        return
    code = "\n".join(
        line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
    )
    assert not TRANSACTION_STATEMENTS.search(code), (
        f"store/{path.name} ends or begins a transaction"
    )
    for _module, names in imports(path):
        assert not names & {"transaction", "snapshot"}, f"store/{path.name} opens a transaction"


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.name)
def test_domain_rules_run_inside_their_callers_transaction(path):
    for module, names in imports(path):
        assert not (part(module) == "store" and names & {"transaction", "snapshot"}), (
            f"{path.name} opens a transaction: its caller chooses the unit of work"
        )


@pytest.mark.parametrize(
    "path",
    [p for p in service_files() if part(own_part(p) or "") != "store" and own_part(p) != "store"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_sql_drivers_are_used_only_in_the_store(path):
    for module, _ in imports(path):
        assert top(module) not in DRIVERS, f"{path.name} imports {module}: SQL lives in store/"


@pytest.mark.parametrize(
    "path",
    [p for p in service_files() if own_part(p) not in ("blueprints", "auth")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_only_http_code_reads_flask_g(path):
    for module, names in imports(path):
        assert not (module == "flask" and "g" in names), f"{path.name} reads flask.g"


@pytest.mark.parametrize("path", files("harness/*.py"), ids=lambda p: p.name)
def test_the_harness_drives_the_service_from_outside(path):
    for module, _ in imports(path):
        assert part(module) is None, (
            f"harness/{path.name} imports {module}: use the HTTP API or the CLI"
        )
