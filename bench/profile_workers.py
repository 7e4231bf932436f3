"""Profile the service's gunicorn workers under one bench scenario with py-spy.

    python -m bench.profile_workers get         # or list, create, patch, callback, mixed
    python -m bench.profile_workers list --seconds 10 --top 40 --raw /tmp/list.txt

Run from the project root. Seeds a scenario database like `python -m bench`, starts gunicorn (4 workers,
production settings), runs wrk with the scenario's script and, at the same
time, `py-spy record --subprocesses` on the master. Prints the functions
with the largest share of the workers' samples, inclusive (the function and
what it calls) and by file; idle samples (a worker waiting in accept/select)
are left out. --raw keeps the collapsed stacks for a flame graph.
"""

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bench import run, seed
from bench.config import SCENARIOS
from bench.measure import write_ids
from bench.scenarios import start_server
from bench.wrk import Totals, wrk
from harness import BIN, create_key
from harness import ROOT as PROJECT

ROOT = str(PROJECT) + "/"
IDLE = (
    "select (selectors.py",
    "wait (gunicorn/workers/sync.py",
    "accept (socket.py",
    "sleep (gunicorn",
)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m bench.profile_workers",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    p.add_argument("scenario", choices=[s[0] for s in SCENARIOS])
    p.add_argument("--seconds", type=int, default=8)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    p.add_argument("--raw", help="also keep py-spy's collapsed stacks in this file")
    p.add_argument("--drafts", type=int, default=10_000, help="posts seeded (default 10,000)")
    a = p.parse_args(argv)
    spy = shutil.which("py-spy") or str(BIN / "py-spy")
    if not Path(spy).exists():
        sys.exit("error: py-spy is not installed: make install-test (requirements-test.txt)")
    name, label, where, script, id_list = next(s for s in SCENARIOS if s[0] == a.scenario)
    args = run.parse_args([])
    tmp = Path(tempfile.mkdtemp(prefix="bench-profile-"))
    servers = []
    try:
        db = tmp / "bench.sqlite"
        seeded = seed.seed_main(
            db, a.drafts, 2 * a.drafts if id_list == "scheduled" else 0, progress=lambda m: None
        )
        key = create_key(db, seed.CALLER)
        sargs = {"key": key}
        if id_list == "drafts":
            sargs["ids"] = write_ids(tmp / "ids.txt", seeded["drafts"])
        elif id_list == "scheduled":
            sargs["ids"] = write_ids(
                tmp / "ids.txt", [f"{pid} {n}" for n, pid in enumerate(seeded["scheduled"], 1)]
            )
        env = {"FLASK_SQLITE_SYNCHRONOUS": "NORMAL" if where == "normal" else "FULL"}
        server = start_server(tmp, "profile", db, servers, env=env)
        totals = Totals()
        wrk(args, server, script, 1, sargs, totals, "warm-up")
        raw = tmp / "profile.txt"
        cmd = [
            spy,
            "record",
            "--pid",
            str(server.proc.pid),
            "--subprocesses",
            "--rate",
            str(a.rate),
            "--duration",
            str(a.seconds),
            "--format",
            "raw",
            "--output",
            str(raw),
            "--nonblocking",
        ]
        spy_proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        result = {}
        t = threading.Thread(
            target=lambda: result.update(wrk(args, server, script, a.seconds, sargs, totals, name))
        )
        t.start()
        t.join()
        spy_proc.wait(a.seconds + 60)
        print(
            f"{label}: {result['rps']:.0f} req/s under py-spy ({a.rate} Hz, which slows it a little); "
            f"errors {result['socket_errors']}+{result['non2xx']}"
        )
        report(raw, a.top)
        if a.raw:
            shutil.copyfile(raw, a.raw)
            print(f"\ncollapsed stacks (flamegraph.pl / speedscope input): {a.raw}")
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def report(raw, top):
    inclusive, by_file = collections.Counter(), collections.Counter()
    total = idle = 0
    for line in Path(raw).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        frames = stack.split(";")
        if any(frames[-1].startswith(i) for i in IDLE) or "wait (gunicorn" in frames[-1]:
            idle += n
            continue
        total += n
        for f in set(frames):
            if f.startswith("process ") or f.startswith("<module>"):
                continue
            inclusive[_short(f)] += n
        by_file[_file(frames[-1])] += n
    print(f"{total} busy samples in the workers ({idle} idle samples left out)")
    print(
        f"\nTop {top} functions, inclusive (% of busy samples; the frames of gunicorn's worker loop,"
    )
    print("in over 90% of the samples, are left out):")
    shown = [(f, n) for f, n in inclusive.most_common() if n <= 0.9 * total][:top]
    for f, n in shown:
        print(f"  {100 * n / total:5.1f}%  {f}")
    print("\nWhere the CPU is spent, by file of the innermost frame (self time):")
    for f, n in by_file.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {f}")


def _short(frame):
    # "func (path/to/file.py:123)" -> "func (file.py)" with a site-packages-relative path
    func, _, where = frame.partition(" (")
    where = where.rstrip(")")
    path = where.rsplit(":", 1)[0]
    if "site-packages/" in path:
        path = path.split("site-packages/", 1)[1]
    elif path.startswith(ROOT):
        path = path[len(ROOT) :]
    return f"{func} ({path})"


def _file(frame):
    _, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    if path.startswith(ROOT):
        return path[len(ROOT) :]
    return path


if __name__ == "__main__":
    main()
