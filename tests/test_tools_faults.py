"""`python -m faults --smoke`: every fault step, one short round (see test_tools.py)."""

import re

import pytest

from faults.steps import STEPS
from tests.tools_support import run_tool


@pytest.mark.slow
def test_faults_smoke():
    out = run_tool("faults", "--smoke")
    for number, module in STEPS.items():
        name = module.__name__.rsplit(".", 1)[1]
        assert re.search(rf"^  PASS  step {number} {name} +(\d+)/\1 checks", out, re.MULTILINE), (
            name,
            out[-6000:],
        )
    assert "FAIL" not in out, out[-6000:]
