"""PostgreSQL in the benchmark: `python -m bench --backend postgresql` (or `both`).

The scenarios run as on SQLite (bench/run.py: the same wrk scripts, each
between two runs of the same bare-Flask ceiling) against the service with
FLASK_DATABASE set to a fresh schema of the local server (TEST_DATABASE_URL,
default postgresql://127.0.0.1:5432/test), which is dropped afterwards. The
durable writes are PostgreSQL's default, `synchronous_commit = on`.

- Two hosts: a second gunicorn on the same database, and GET one and create
  measured against one host, then against both at once (half the
  connections each). Reported, not judged: on one 2-core machine the two
  hosts share the cores.
- Growth: the 1,000,000-post database is copied once from the cached SQLite
  one with `flask copy-db` (PostgreSQL's COPY), analysed, and kept in a
  schema of its own, named by the hash of both backends' migrations, for
  later runs.
"""

import argparse
import hashlib
from concurrent.futures import ThreadPoolExecutor

from bench import seed
from harness import ROOT, flask_cli, postgres

GROWTH = "bench_growth"


def schema_hash():
    files = sorted((ROOT / "content_publishing" / "store" / "migrations").glob("*/*.sql"))
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:12]


def growth_db(total, workdir, progress, cache=True, fresh=None):
    """(URL, meta) of a schema holding the growth database of `total` posts.
    cache=False copies into `fresh()` (a schema dropped after the run)."""
    sqlite_path, meta = seed.growth_db(total, workdir, progress=progress, cache=cache)
    return kept_copy(GROWTH, sqlite_path, total, progress, cache, fresh), meta


def kept_copy(prefix, sqlite_path, total, progress, cache=True, fresh=None):
    """The URL of a schema holding a copy of the SQLite database of `total`
    posts, kept as `<prefix>_<schema hash>_<total>` for later runs (an older
    schema's copy is dropped). cache=False copies into `fresh()` (a schema
    dropped after the run)."""
    if not cache:
        url = fresh()
    else:
        name = f"{prefix}_{schema_hash()}_{total}"
        postgres.drop_schemas(f"{prefix}_%\\_{total}", keep=name)  # an older schema's cache
        url = postgres.kept_schema(name)
        if postgres.post_count(url) == total:
            progress(f"using the cached {total:,}-post schema {name}")
            return url
        postgres.drop_schemas(name)  # an earlier copy that did not finish
        url = postgres.kept_schema(name)
        progress(f"copying the {total:,}-post database into PostgreSQL (kept as {name})")
    flask_cli(sqlite_path, "copy-db", "--to", url, timeout=3600)
    postgres.analyze(url)
    return url


def two_hosts(args, tmp, totals, results, servers, bench, host_a, database, sargs):
    """GET one and create against one host, then two at once; results["two_hosts"]."""
    host_b = bench.start_server(tmp, "pg-host-b", database, servers, workers=args.workers)
    out = results.setdefault("two_hosts", {})
    bench.log()
    bench.log(
        f"Two hosts on one PostgreSQL database ({args.workers} workers each, on the same cores):"
    )
    # A smoke run asks only whether two hosts still serve: GET one is enough.
    kinds = (("get", "get.lua"),) if args.smoke else (("get", "get.lua"), ("create", "create.lua"))
    for name, script in kinds:
        one = bench.wrk(args, host_a, script, args.duration, sargs, totals, f"pg {name} one host")
        half = argparse.Namespace(**{**vars(args), "connections": max(1, args.connections // 2)})
        with ThreadPoolExecutor(2) as pool:  # both hosts under load at once
            runs = [
                pool.submit(bench.wrk, half, h, script, args.duration, sargs, totals, f"pg {name}")
                for h in (host_a, host_b)
            ]
            both = {h.name: run.result() for h, run in zip((host_a, host_b), runs, strict=True)}
        total = sum(r["rps"] for r in both.values())
        out[name] = {
            "one_host_rps": one["rps"],
            "two_hosts_rps": total,
            "gain": total / one["rps"],
            "requests": one["requests"] + sum(r["requests"] for r in both.values()),
            "socket_errors": one["socket_errors"] + sum(r["socket_errors"] for r in both.values()),
            "non2xx": one["non2xx"] + sum(r["non2xx"] for r in both.values()),
        }
        parts = " + ".join(f"{r['rps']:.0f}" for r in both.values())
        bench.log(
            f"  {name:<7} one host {one['rps']:7.0f} req/s; two hosts {parts} = {total:.0f} req/s "
            f"(x{total / one['rps']:.2f})"
        )
