"""What the tools' smoke tests (test_tools.py, test_tools_faults.py) share:
running `python -m <tool> ...` from the project root, as `make bench` and
`make faults` do, and failing with the end of its output unless it exits 0."""

import subprocess
import sys

from harness import ROOT

TIMEOUT = 300  # seconds per tool: about a minute on an idle machine, over three under other load


def run_tool(*args):
    result = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, (
        f"python -m {' '.join(args)} exited {result.returncode}:\n{output[-8000:]}"
    )
    return result.stdout
