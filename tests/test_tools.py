"""Smoke runs of the two tools, so that a change that breaks either is caught
(marked `slow`: they run under `make test-slow`, so that `make test` keeps
within 4 minutes on 2 cores).

`python -m bench --smoke` (here, on SQLite and PostgreSQL) and `python -m faults --smoke`
(test_tools_faults.py, a module of its own so that the two run side by side
under pytest-xdist) run as `make bench` and `make faults` do, as modules
from the project root in subprocesses: every bench scenario sends a few
hundred requests (the own publisher 20 posts, with one dispatcher and two)
and every fault step runs one short round. Each must exit
0 and print a PASS line for each scenario and step. On a quiet 2-core
machine the bench takes about 37 s, the faults about 25 s, side by side
about 40 s of the suite.
"""

import re
import shutil

import pytest

from bench.config import SCENARIOS, SMOKE_ON_POSTGRES
from tests.system import unavailable
from tests.tools_support import run_tool


@pytest.mark.slow
def test_bench_smoke():
    if shutil.which("wrk") is None:
        unavailable(
            "wrk is not installed: apt-get install -y wrk (make test does, as root)",
            "the bench smoke test",
        )
    out = run_tool("bench", "--smoke")
    names = [
        "ceiling",
        *(s[0] for s in SCENARIOS),
        *(f"growth get_{n}" for n in ("small", "big")),  # a smoke run grows GET one only
    ]
    # and on PostgreSQL: a read, a write and the callback, two hosts, growth
    names += [
        f"pg {n}" for n in ("ceiling", *SMOKE_ON_POSTGRES, "growth get_small", "growth get_big")
    ]
    names += ["pg two hosts get"]  # a smoke run measures GET one only
    for name in names:
        assert re.search(
            rf"^  PASS  {name}: [\d,]+ requests, 0 socket errors, 0 non-2xx$", out, re.MULTILINE
        ), (name, out[-6000:])
    assert re.search(r"^  PASS  zero socket errors and zero non-2xx", out, re.MULTILINE), out[
        -3000:
    ]
    # the search scenario (bench/search.py), on each backend
    assert len(re.findall(r"^  PASS  search: every request answered", out, re.MULTILINE)) == 2
    # the own publisher (bench/publisher.py): one dispatcher, then two, each post once
    for count in (1, 2):
        assert re.search(
            rf"^  {count} dispatcher\(s\): due -> 201 .* double posts 0, "
            r"not published 0;",
            out,
            re.MULTILINE,
        ), (count, out[-6000:])
