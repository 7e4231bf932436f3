"""Tests that need a program from the system (Chromium, wrk) skip without it,
with the reason, except under CI: there they fail, so CI never passes by
skipping them. `make test` installs them (system-packages) when it can."""

import os

import pytest


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason, what):
    """Skip (or fail under CI) because `what` cannot run: `reason`."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so {what} must run, not be skipped)", pytrace=False)
    pytest.skip(reason)
