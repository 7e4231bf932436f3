"""nginx (Debian's package) running the shipped deploy/nginx.conf in front of a server.

The tests run the shipped site file itself, not a copy of its directives:
site_for_test() changes only the ports and the log directory, at exactly
the places the file's header names, and raises if one of them is not found
as often as expected, so an edit of the shipped file cannot leave the tests
running something else. main_config() stands in for Debian's
/etc/nginx/nginx.conf (the same `http` settings) with every path in the
test's directory. nginx runs in the foreground as a Process of its own
(never the system service), stopped and killed like gunicorn.
"""

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

from harness.paths import ROOT
from harness.process import Process
from harness.server import free_port

SITE = ROOT / "deploy" / "nginx.conf"

# (text in the shipped file, what the test puts there, how often it occurs)
SUBSTITUTIONS = (
    ("listen 80;", "listen 127.0.0.1:{port};", 1),
    ("listen [::]:80;", "", 1),
    ("server 127.0.0.1:8000;", "server 127.0.0.1:{upstream_port};", 1),
    ("/var/log/nginx/", "{directory}/", 1),
)


def limits(text=None):
    """{zone: (requests per second, burst)} as the site sets them, for tests
    that must hold whatever the limits are changed to."""
    text = SITE.read_text() if text is None else text
    rates = {
        zone: int(n) / (60 if unit == "m" else 1)
        for zone, n, unit in re.findall(
            r"^\s*limit_req_zone\s+\S+\s+zone=(\w+):\S+\s+rate=(\d+)r/([sm]);", text, re.M
        )
    }
    bursts = dict(re.findall(r"^\s*limit_req\s+zone=(\w+)\s+burst=(\d+)", text, re.M))
    return {zone: (rate, int(bursts[zone])) for zone, rate in rates.items()}


def nginx_binary():
    """The nginx program (NGINX_PATH overrides), or None when it is not installed."""
    path = os.environ.get("NGINX_PATH") or shutil.which("nginx") or "/usr/sbin/nginx"
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def site_for_test(text, port, upstream_port, directory):
    """The shipped site with only its ports and log directory changed (in
    directives; the comments that mention them stay as they are)."""
    values = {"port": port, "upstream_port": upstream_port, "directory": directory}
    lines = text.splitlines(keepends=True)
    for shipped, replacement, count in SUBSTITUTIONS:
        found = 0
        for i, line in enumerate(lines):
            code, hash_, comment = line.partition("#")
            if shipped in code:
                found += code.count(shipped)
                code = code.replace(shipped, replacement.format(**values))
                lines[i] = code + hash_ + comment
        if found != count:
            raise ValueError(f"{SITE.name}: expected {shipped!r} {count} time(s), found {found}")
    return "".join(lines)


def main_config(directory, site):
    """Debian's nginx.conf, paths in `directory`, with `site` as the only site.

    Run as root (the tests' machine), nginx's workers would be `nobody` and
    could not write request bodies into the test's private directory, so
    they stay root there; they only ever listen on 127.0.0.1.
    """
    d = Path(directory)
    user = "user root root;" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {kind}_temp_path {d / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""\
{user}
worker_processes 1;
pid {d / "nginx.pid"};
error_log {d / "error.log"} info;
events {{
    worker_connections 768;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {d / "access.log"};
    gzip on;
{temp}
    include {site};
}}
"""


class Nginx(Process):
    """nginx on a free 127.0.0.1 port in front of `upstream_port`; files in `directory`.

    `url`; `access_log()` (the site's, redacted), `error_log()`; `check()`
    runs `nginx -t` on the same files.
    """

    def __init__(self, upstream_port, directory, *, port=None, site=SITE, name="nginx"):
        binary = nginx_binary()
        if binary is None:
            raise FileNotFoundError("nginx is not installed: apt-get install -y nginx")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        site_file = self.directory / "site.conf"
        site_file.write_text(
            site_for_test(Path(site).read_text(), self.port, upstream_port, self.directory)
        )
        self.config = self.directory / "nginx.conf"
        self.config.write_text(main_config(self.directory, site_file))
        self.base_argv = [binary, "-p", str(self.directory), "-c", str(self.config)]
        super().__init__(
            [*self.base_argv, "-g", "daemon off;"],
            log=self.directory / "nginx.out",
            name=name,
        )

    def ready(self):
        with socket.socket() as s:
            s.settimeout(1.0)
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def check(self):
        """`nginx -t`: (exit code, its output)."""
        result = subprocess.run([*self.base_argv, "-t"], capture_output=True, text=True, timeout=30)
        return result.returncode, result.stdout + result.stderr

    def access_log(self):
        return _read(self.directory / "content-publishing.access.log")

    def error_log(self):
        return _read(self.directory / "error.log")


def _read(path):
    return path.read_text(errors="replace") if path.exists() else ""
