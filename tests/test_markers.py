"""The kinds of test tests/conftest.py marks (`browser`, `live`, the `slow`
PostgreSQL half of a live test outside `both_backends`), the order in which
it hands out modules, and its check that only a `live` test starts a server.

Collected in a pytest process of its own, as a developer's `-m` would."""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from harness import ROOT
from tests import conftest

FEW = [
    "tests/test_dashboard.py",  # browser tests on the shared dashboard server, in-process ones too
    "tests/test_metrics.py",  # live on both backends, no both_backends
    "tests/test_at_most_one.py",  # live, both_backends
    "tests/test_posts.py",  # in-process only
]


def collected(*args):
    """The test ids `pytest --collect-only` lists for FEW with `args`."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args]
        + FEW,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode in (0, 5), result.stdout + result.stderr  # 5: none selected
    return [line for line in result.stdout.splitlines() if "::" in line]


def test_each_kind_runs_alone():
    browser = collected("-m", "browser")
    assert browser and all(t.startswith("tests/test_dashboard.py::") for t in browser)
    in_process = {"test_the_page_carries_the_services_lead_time", "test_posts.py"}
    assert not [t for t in browser if any(name in t for name in in_process)]

    live = collected("-m", "live and not slow")
    assert {t.split("::")[0] for t in live} == {
        "tests/test_dashboard.py",
        "tests/test_metrics.py",
        "tests/test_at_most_one.py",
    }
    assert set(browser) <= set(live)
    # test_metrics' PostgreSQL half is make test-slow's; test_at_most_one's is make test's.
    assert not [t for t in live if t.startswith("tests/test_metrics.py") and "postgresql" in t]
    assert [t for t in live if t.startswith("tests/test_at_most_one.py") and "postgresql" in t]
    slow = collected("-m", "live and slow")
    assert slow and all(t.startswith("tests/test_metrics.py") and "postgresql" in t for t in slow)

    default = collected()  # what make test runs of FEW: neither slow nor the others
    assert set(live) < set(default) and not set(slow) & set(default)
    assert [t for t in default if t.startswith("tests/test_posts.py") and "postgresql" in t]


def test_the_longest_modules_come_first():
    seconds = conftest._module_seconds()
    median = sorted(seconds.values())[len(seconds) // 2] if seconds else 0.0
    order = list(dict.fromkeys(t.split("::")[0] for t in collected()))
    by_seconds = sorted(
        FEW, key=lambda path: -seconds.get(path.removeprefix("tests/").removesuffix(".py"), median)
    )
    assert order == by_seconds, (order, seconds)


@pytest.mark.parametrize("marked", [True, False])
def test_a_server_started_by_a_test_not_marked_live_fails_it(monkeypatch, marked):
    launched = []
    launch = conftest._launch_checked(launched.append)
    item = SimpleNamespace(
        nodeid="tests/test_x.py::test_y",
        get_closest_marker=lambda name: marked if name == "live" else None,
    )
    monkeypatch.setattr(conftest, "_running", [item])
    gunicorn = type("Gunicorn", (), {"name": "gunicorn"})()
    command = type("FlaskCommand", (), {"name": "flask"})()
    launch(command)  # not a server: whatever the marks
    if marked:
        launch(gunicorn)
    else:
        with pytest.raises(AssertionError, match="test_y starts gunicorn but is not marked live"):
            launch(gunicorn)
    assert launched == [command, gunicorn] if marked else [command]
