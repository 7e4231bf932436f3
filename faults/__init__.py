"""Fault harness: the service under load, crashes, a revoke race, a full disk
and bad starts, against real gunicorn on file databases.

`python -m faults --help` lists the options; each step is a module of
faults.steps with a run(args, tmp) that returns a faults.report.Step.
"""
