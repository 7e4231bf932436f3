"""How a fault step reports: figures as it goes, then checks that pass or fail.

Every step prints as it runs (a step can take a minute; a silent one looks
hung) and returns a Step; the harness exits 1 if any check of any step failed.
"""

import time


def log(msg=""):
    print(msg, flush=True)


class Step:
    """A step's figures and checks. `warnings`: checks reported but not
    counted (step 5's extra cases without --strict)."""

    def __init__(self, name):
        self.name, self.checks, self.figures, self.warnings = name, [], [], []
        self.seconds = 0.0

    def figure(self, text):
        self.figures.append(text)
        log(f"    {text}")

    def check(self, ok, text):
        self.checks.append((bool(ok), text))
        log(f"  {'PASS' if ok else 'FAIL'}  {text}")
        return ok

    def checks_from(self, checks):
        """Report harness checks (harness.ledger.Check) as this step's."""
        for c in checks:
            self.check(c.ok, c.text)

    def warn(self, ok, text):
        self.warnings.append((bool(ok), text))
        log(f"  {'ok  ' if ok else 'WARN'}  {text} (not counted; --strict counts it)")

    @property
    def ok(self):
        return bool(self.checks) and all(ok for ok, _ in self.checks)

    def summary(self):
        failed = sum(1 for ok, _ in self.checks if not ok)
        warned = sum(1 for ok, _ in self.warnings if not ok)
        return (
            f"{'PASS' if self.ok else 'FAIL'}  step {self.name:<12} {len(self.checks) - failed}/{len(self.checks)} "
            f"checks, {self.seconds:.0f} s"
            + (f"; {warned} extra case(s) WARN (see above)" if warned else "")
        )


def timed(run, args, tmp, name):
    """Run one step; a step that raises is a failed step, and the others still run."""
    t0 = time.monotonic()
    try:
        step = run(args, tmp)
    except Exception as e:
        step = Step(name)
        step.check(False, f"the step raised {type(e).__name__}: {e}")
    step.seconds = time.monotonic() - t0
    return step
