"""Benchmark of the service under real gunicorn with wrk: `python -m bench`.

bench.run is the entry point (arguments and the order of the runs);
bench.config holds the scenarios and the targets, bench.wrk the wrk runs,
bench.scenarios and bench.growth the measured runs, bench.handoff the claim,
webhook and idle-dispatcher runs, bench.report what is printed at the end and
bench.measure the small measurements they share. bench.seed fills the
databases through the service's store code, bench.profile_workers profiles
the workers with py-spy; *.lua are wrk's scripts and ceiling_app.py the
bare-Flask ceiling.
"""
