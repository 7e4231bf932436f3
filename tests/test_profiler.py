"""The workers' profiler, `python -m bench.profile_workers`, runs as its
docstring says (docs/performance.md): it seeds a scenario's database, starts
gunicorn, samples its workers with py-spy under wrk's load and prints where
their time went. A short run of GET one post, from the project root."""

import re
import shutil

from tests.system import unavailable
from tests.tools_support import run_tool


def test_the_profiler_prints_where_the_workers_time_goes():
    if shutil.which("wrk") is None:
        unavailable(
            "wrk is not installed: apt-get install -y wrk (make test does, as root)",
            "the profiler smoke test",
        )
    out = run_tool("bench.profile_workers", "get", "--seconds", "2", "--drafts", "200")
    assert re.search(r"^GET one post: \d+ req/s under py-spy", out, re.MULTILINE), out[-3000:]
    assert re.search(r"^\d+ busy samples in the workers", out, re.MULTILINE), out[-3000:]
    # The service's own code shows among the places the time goes.
    assert re.search(r"^\s+[\d.]+%  content_publishing/\S+\.py$", out, re.MULTILINE), out[-3000:]
