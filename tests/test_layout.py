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

# The parts of the service, as docs/layout.md names them: a module or
# package directly under content_publishing (MODULE_PARTS count module by
# module), and the root shims. The table of the document is the
# rule itself: it is read here, so that the two cannot drift.
ANYTHING = None
MODULE_PARTS = ("webhooks", "serving", "publisher", "media", "notifications")
TABLE_HEADING = "## What each part may import"
DOMAIN_SENTENCE = re.compile(r'"The domain" is (.*?)\.\s', re.S)


def backticked(text):
    return re.findall(r"`([^`]+)`", text)


DOMAIN = set(backticked(DOMAIN_SENTENCE.search(LAYOUT_DOC).group(1)))
DOMAIN_PACKAGES = {  # a package counted module by module is named by its face alone
    name
    for name in DOMAIN
    if (ROOT / "content_publishing" / name).is_dir() and name not in MODULE_PARTS
}
DOMAIN_MODULES = DOMAIN - DOMAIN_PACKAGES


def allowed_parts(cell):
    """The parts a row's last column allows: `anything` is ANYTHING; words in
    parentheses are notes; "the domain" stands for every domain part."""
    cell = re.sub(r"\([^)]*\)", "", cell).strip()
    if cell == "anything":
        return ANYTHING
    allowed = set(backticked(cell))
    if "the domain" in cell:
        allowed |= DOMAIN
    return allowed


def layout_rows():
    """docs/layout.md's import table: {(file patterns...): allowed parts}."""
    table = LAYOUT_DOC.split(TABLE_HEADING, 1)[1]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        rows[tuple(backticked(cells[0]))] = allowed_parts(cells[2])
    return rows


LAYOUT = layout_rows()
PACKAGE_INITS = {  # maps without code of their own, in no row
    "content_publishing/webhooks/__init__.py",
    "content_publishing/serving/__init__.py",
    "content_publishing/cli/__init__.py",
    "content_publishing/publisher/__init__.py",
    "content_publishing/media/__init__.py",
}


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
    if module != "content_publishing" and not module.startswith("content_publishing."):
        return None
    names = module.split(".")[1:]
    if not names:
        return "content_publishing"
    if names[0] in MODULE_PARTS and len(names) > 1:
        return ".".join(names[:2])
    return names[0]


def top(module):
    return module.split(".")[0]


def files(*patterns):
    return [p for pattern in patterns for p in sorted(ROOT.glob(pattern))]


def service_files():
    """Every Python file of the service: the root shims and the package."""
    return [
        p
        for p in files("*.py", "content_publishing/**/*.py")
        if str(p.relative_to(ROOT)) not in PACKAGE_INITS
    ]


def row_of(path):
    matching = [
        (patterns, allowed) for patterns, allowed in LAYOUT.items() if path in files(*patterns)
    ]
    # A row that names the file itself wins over a row with a wildcard
    # (http/apidoc.py over http/*.py).
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


def test_the_layout_table_is_read_whole():
    """Each row of the table names files that exist, and its parts are parts."""
    assert len(LAYOUT) >= 10, "docs/layout.md's import table was not found"
    parts = {part(f"content_publishing.{p.stem}") for p in PACKAGE.iterdir()} | {
        "content_publishing"
    }
    parts |= {f"{pkg}.{p.stem}" for pkg in MODULE_PARTS for p in (PACKAGE / pkg).glob("*.py")}
    for patterns, allowed in LAYOUT.items():
        for pattern in patterns:
            assert files(pattern), f"docs/layout.md names {pattern}, which matches no file"
        for name in allowed or ():
            assert name in parts, f"docs/layout.md allows {name}, which is no part of the service"


SYS_PATH_EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend|remove)|\[|\+=|=)")


def test_no_module_edits_sys_path():
    for path in files("*.py", "content_publishing/**/*.py", "harness/*.py"):
        assert not SYS_PATH_EDIT.search(path.read_text()), (
            f"{path.relative_to(ROOT)} edits sys.path"
        )


@pytest.mark.parametrize("path", files("content_publishing/http/*.py"), ids=lambda p: p.name)
def test_no_view_writes_an_event(path):
    """A change and its event are written by one domain function."""
    for module, _ in imports(path):
        assert module not in {
            "content_publishing.webhooks.events",
            "content_publishing.store.outbox",
        }, f"http/{path.name} imports {module}: events are the domain's to write"


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


# The MCP server (content_publishing/mcp/) is a client of the HTTP API: what
# it may do is what the API lets its key do, so it reads no setting, schema,
# store or rule of the service, and no framework or driver of it. And the
# service never imports it (nor the SDK), so that `pip install .` without
# the `mcp` extra serves as before.
MCP_FILES = files("content_publishing/mcp/*.py")
SERVICE_LIBRARIES = {"flask", "marshmallow", "werkzeug"} | DRIVERS


@pytest.mark.parametrize("path", MCP_FILES, ids=lambda p: p.name)
def test_the_mcp_server_talks_to_the_service_over_http_only(path):
    for module, _ in imports(path):
        assert part(module) in (None, "mcp"), (
            f"mcp/{path.name} imports {module}: the MCP server uses the service's HTTP API only"
        )
        assert top(module) not in SERVICE_LIBRARIES, (
            f"mcp/{path.name} imports {module}: the MCP server uses the service's HTTP API only"
        )


def test_nothing_of_the_service_imports_the_mcp_server():
    assert len(MCP_FILES) >= 10, "content_publishing/mcp/ was not found"
    for path in service_files():
        if path in MCP_FILES:
            continue
        for module, _ in imports(path):
            assert part(module) != "mcp" and top(module) != "mcp", (
                f"{path.relative_to(ROOT)} imports {module}: the MCP server is an extra"
            )


def module_file(dotted):
    """The file of a part named like `media.library` or `notifications`."""
    path = PACKAGE.joinpath(*dotted.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


DOMAIN_FILES = [module_file(m) for m in sorted(DOMAIN_MODULES)]
DOMAIN_FILES += [f for p in sorted(DOMAIN_PACKAGES) for f in sorted((PACKAGE / p).glob("*.py"))]


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.name)
def test_domain_modules_take_plain_values(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask"} | DRIVERS and part(module) not in {"auth", "http"}, (
            f"{path.name} imports {module}: domain rules take plain values, not the request"
        )


@pytest.mark.parametrize("path", files("content_publishing/schemas/*.py"), ids=lambda p: p.name)
def test_schemas_know_no_request_and_no_database(path):
    for module, _ in imports(path):
        assert top(module) not in {"flask"} | DRIVERS and part(module) != "http", (
            path.name,
            module,
        )
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
    [p for p in service_files() if own_part(p) not in ("http", "auth")],
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


def package_maps():
    """Every package of the service with its __init__.py, the package's map."""
    return sorted(p.parent for p in PACKAGE.glob("**/__init__.py"))


@pytest.mark.parametrize("package", package_maps(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_package_map_names_each_of_its_modules(package):
    """A package's __init__ docstring is its map: every module and
    subpackage in it is named there, as `name.py` or `name/`."""
    map_text = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    members = [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    members += [f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").exists()]
    if package == PACKAGE:
        members.append("static/")
    for name in sorted(members):
        assert re.search(rf"(^|[\s/`]){re.escape(name)}", map_text), (
            f"{package.relative_to(ROOT)}/__init__.py does not name {name} in its map"
        )


# Comments and docs say why, never which ticket: a reader of the repository
# cannot follow a tracker number.
TICKET = re.compile(r"\b(issue|ticket|task)s? #?\d+", re.I)


@pytest.mark.parametrize(
    "path",
    files(
        "*.md",
        "docs/*.md",
        "*.py",
        "content_publishing/**/*.py",
        "content_publishing/**/*.js",
        "harness/*.py",
        "bench/*.py",
        "faults/**/*.py",
        "tests/*.py",
        "integrations/**/*.md",
    ),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_comment_or_doc_cites_a_ticket(path):
    found = [m.group(0) for m in TICKET.finditer(path.read_text())]
    assert not found, f"{path.relative_to(ROOT)} cites {found}: say why, not which ticket"


TOP_MODULES_AT_MOST = 14


def test_only_what_every_feature_uses_stays_at_the_top():
    """docs/layout.md: a feature is a package; the top keeps at most 14 modules."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_MODULES_AT_MOST, top


# The feature packages: what linkedin/ never imports (it is a leaf behind
# the publisher's seam, used by posts and planning for its text rules and
# its plan builder).
FEATURES = {
    "posts",
    "planning",
    "channels",
    "analytics",
    "articles",
    "workspaces",
    "publisher",
    "media",
    "notifications",
    "webhooks",
}


@pytest.mark.parametrize("path", files("content_publishing/linkedin/*.py"), ids=lambda p: p.name)
def test_linkedin_is_a_leaf(path):
    for module, _ in imports(path):
        found = part(module)
        assert found is None or found.split(".")[0] not in FEATURES, (
            f"linkedin/{path.name} imports {module}: linkedin/ imports no feature package"
        )


def code_words(path):
    """The names and strings of a file's code, its docstrings and comments left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                yield node.value
        elif isinstance(node, ast.alias):
            yield node.name


# The reference interface's own field name, which every post record carries.
RECORD_FIELDS = {"linkedin_post_id"}


@pytest.mark.parametrize(
    "path",
    [p for p in files("content_publishing/publisher/*.py") if p.name != "network.py"],
    ids=lambda p: p.name,
)
def test_the_publisher_reaches_a_network_only_through_its_seam(path):
    """publisher/network.py is the one place that names a network."""
    for module, _ in imports(path):
        assert part(module) != "linkedin", f"publisher/{path.name} imports {module}"
    named = [w for w in code_words(path) if "linkedin" in w.lower() and w not in RECORD_FIELDS]
    assert not named, f"publisher/{path.name} names LinkedIn in its code: {named}"


def test_the_dashboards_stylesheet_closes_every_rule():
    """A rule left open swallows every rule after it (the browser reads them
    as nested ones that match nothing), with no error anywhere."""
    css = (ROOT / "content_publishing/static/dashboard/dashboard.css").read_text()
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    depth = 0
    for number, line in enumerate(css.splitlines(), start=1):
        depth += line.count("{") - line.count("}")
        assert depth >= 0, f"dashboard.css line {number}: a '}}' closes nothing"
        if line.rstrip().endswith("{") and not line.startswith(" "):  # a rule of its own
            assert depth == 1, f"dashboard.css line {number}: inside a rule left open"
    assert depth == 0
