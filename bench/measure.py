"""Small measurements and summaries the runs share: medians, resident
memory, the machine, a server log's tracebacks."""

import os
import platform
import sqlite3
import statistics
import subprocess
from pathlib import Path

from harness import POSTS, Client


def published_total(server, key):
    with Client(server.url, key, timeout=10) as client:
        r = client.get(f"{POSTS}?status=Published&limit=1")
    if r.status != 200:
        raise RuntimeError(f"counting Published posts: {r.status or r.error} {r.text[:200]}")
    return r.json["total"]


def rss_mb(pid):
    """(VmRSS, VmHWM) in MB from /proc/<pid>/status."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, value, _unit = line.split()
                out[name[:-1]] = int(value) / 1024
    return out["VmRSS"], out["VmHWM"]


def write_ids(path, ids):
    Path(path).write_text("".join(f"{i}\n" for i in ids))
    return str(path)


def fmt_ms(us):
    return f"{us / 1000:.1f}"


def median(values):
    return statistics.median(values) if values else float("nan")


def summarize(runs):
    return {
        "rps": median([r["rps"] for r in runs]),
        "p50_us": median([r["p50_us"] for r in runs]),
        "p99_us": median([r["p99_us"] for r in runs]),
        "cpu_ms": median([r["server_cpu_ms_per_req"] for r in runs]),
        "server_cores": median([r["server_cores"] for r in runs]),
        "wrk_cores": median([r["wrk_cores"] for r in runs]),
        "other_cores": median([r["other_cores"] for r in runs]),
        "socket_errors": sum(r["socket_errors"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "requests": sum(r["requests"] for r in runs),
        "all_rps": [round(r["rps"]) for r in runs],
    }


def machine_info():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[
        0
    ]
    return (
        f"{os.cpu_count()} cores ({cpu}); Python {platform.python_version()}; "
        f"SQLite {sqlite3.sqlite_version}; {wrk_version.split(' Copyright')[0].strip()}"
    )


def scan_log(path):
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    return {
        "tracebacks": text.count("Traceback"),
        "database is locked": text.count("database is locked"),
        "worker timeouts": text.count("WORKER TIMEOUT"),
    }
