"""wrk runs and the CPU they cost: each scenario is one wrk run against real
gunicorn, its requests, errors and latencies added to the totals."""

import json
import re
import resource
import subprocess
import time

from bench.config import (
    BENCH,
    CLK_TCK,
)


class Totals:
    """Every request sent in this run, warm-ups included, for the exit code."""

    def __init__(self):
        self.requests = self.socket_errors = self.non2xx = 0
        self.problems = []

    def add(self, name, r):
        self.requests += r["requests"]
        self.socket_errors += r["socket_errors"]
        self.non2xx += r["non2xx"]
        if r["socket_errors"] or r["non2xx"]:
            self.problems.append(
                f"{name}: {r['socket_errors']} socket errors, {r['non2xx']} non-2xx "
                f"({r['non2xx_kinds'].strip() or '-'}) of {r['requests']} requests"
            )


def cpu_seconds(pids):
    """utime + stime of these processes, in seconds (/proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5)
    return total / CLK_TCK


def busy_seconds():
    """CPU time the whole machine spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / CLK_TCK  # minus idle and iowait


QUIET = {"waited": 0.0, "gave_up": 0}


def wait_quiet(limit, threshold=0.15):
    """Wait up to `limit` seconds for the machine to be idle (< threshold cores
    busy over one second): other people's test runs on a shared machine
    otherwise land in the middle of a measurement."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        b0, t0 = busy_seconds(), time.monotonic()
        time.sleep(1)
        if (busy_seconds() - b0) / (time.monotonic() - t0) < threshold:
            QUIET["waited"] += time.monotonic() - (deadline - limit)
            return True
    QUIET["waited"] += limit
    QUIET["gave_up"] += 1
    return False


def wrk(args, server, script, duration, script_args, totals, name):
    """One wrk run against `server`; also measures the CPU time the server's
    processes and wrk itself used, and what the rest of the machine used
    (other processes, and kernel work no process is charged for)."""
    if args.quiet_wait and not name.startswith("warm-up"):
        wait_quiet(args.quiet_wait)
    url = server.url
    pids = [server.proc.pid, *server.worker_pids()]
    busy0 = busy_seconds()
    cpu0, wall0 = cpu_seconds(pids), time.monotonic()
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [
        "wrk",
        f"-t{args.threads}",
        f"-c{args.connections}",
        f"-d{duration}s",
        f"--timeout={args.timeout}s",
        "-s",
        str(BENCH / script),
        url,
        "--",
        f"threads={args.threads}",
        *(f"{k}={v}" for k, v in script_args.items()),
    ]
    if args.max_requests:
        cmd.append(f"max_requests={args.max_requests}")  # lib.lua stops each thread at its share
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    wall = time.monotonic() - wall0
    server_cpu = cpu_seconds(pids) - cpu0
    busy = busy_seconds() - busy0
    child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wrk_cpu = (child1.ru_utime - child0.ru_utime) + (child1.ru_stime - child0.ru_stime)
    m = re.search(r"^BENCH_RESULT (\{.*\})$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"wrk failed ({p.returncode}): {p.stdout}\n{p.stderr}")
    r = json.loads(m.group(1))
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    r["socket_errors"] = r["connect"] + r["read"] + r["write"] + r["timeout"]
    r["server_cpu_ms_per_req"] = 1000 * server_cpu / max(r["requests"], 1)
    r["server_cores"] = server_cpu / wall
    r["wrk_cores"] = wrk_cpu / wall
    r["other_cores"] = max(0.0, (busy - server_cpu - wrk_cpu) / wall)
    if p.stderr.strip():
        r["stderr"] = p.stderr.strip()[:2000]
    totals.add(name, r)
    return r
