"""The fault steps, in the order `--steps` numbers them.

Each module has run(args, tmp) -> faults.report.Step; `tmp` is the run's
scratch directory (databases and server logs).
"""

from faults.steps import badstart, crash, full, hosts, load, publish, revoke

STEPS = {
    "1": load,
    "2": crash,
    "3": revoke,
    "4": full,
    "5": badstart,
    "6": hosts,
    "7": publish,
}
