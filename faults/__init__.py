"""Fault harness: the service under load, crashes, a revoke race, a full disk,
bad starts, two hosts and its own LinkedIn publisher killed mid-publish,
against real gunicorn.

`python -m faults --help` lists the options; each step is a module of
faults.steps with a run(args, tmp) that returns a faults.report.Step.
"""
