"""Benchmark of the service under real gunicorn with wrk: `python -m bench`.

bench.run has the scenarios and the report, bench.seed fills the databases
through the service's store code, bench.profile_workers profiles the workers
with py-spy; *.lua are wrk's scripts and ceiling_app.py the bare-Flask ceiling.
"""
