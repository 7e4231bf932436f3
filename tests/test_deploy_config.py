"""Quick checks of deploy/ that run in the default suite (well under a second).

The shipped nginx site, the systemd units and env.example must agree with
each other and with the service's own settings; nginx and systemd check
their files' syntax when they are installed (skipped otherwise, CI
included: `make test` does not install nginx, `make test-deploy` does and
runs the real thing).
"""

import json
import re
import runpy
import shutil
import string
import subprocess

import pytest

from content_publishing.auth import KEY_PREFIX, generate_key, is_well_formed
from content_publishing.errors import CODES
from content_publishing.settings import defaults
from harness import ROOT, Nginx, nginx_binary
from harness.nginx import SITE, limits, site_for_test

DEPLOY = ROOT / "deploy"
UNITS = ("content-publishing.service", "content-publishing-dispatch.service")
BACKUP_UNITS = ("content-publishing-backup.service", "content-publishing-backup.timer")


def env_example():
    lines = (DEPLOY / "env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def directive(name):
    """The value of a directive that occurs once in the shipped site."""
    values = re.findall(rf"^\s*{name}\s+([^;{{]+);", SITE.read_text(), re.MULTILINE)
    assert len(values) == 1, (name, values)
    return values[0]


def gunicorn_conf():
    """gunicorn.conf.py's settings, read as gunicorn reads the file."""
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_shipped_site_passes_nginx_t(tmp_path):
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (make nginx); make test-deploy runs it")
    code, output = Nginx(8000, tmp_path).check()
    assert code == 0, output


def body_caps():
    """{location or "server": client_max_body_size} as the site sets them."""
    caps, where = {}, "server"
    for line in SITE.read_text().splitlines():
        code = line.partition("#")[0]
        if found := re.match(r"\s*location\s+(.*?)\s*\{", code):
            where = found.group(1)
        if found := re.match(r"\s*client_max_body_size\s+(\S+);", code):
            caps[where] = found.group(1)
    return caps


def test_site_agrees_with_the_service_and_the_units():
    settings = defaults("instance")
    assert settings["MAX_CONTENT_LENGTH"] == 1024 * 1024
    assert settings["MEDIA_MAX_DOCUMENT_BYTES"] == 100 * 1024 * 1024
    assert settings["MEDIA_MAX_BYTES"] < settings["MEDIA_MAX_DOCUMENT_BYTES"]
    # 1 MiB everywhere; the media upload takes the largest the service takes,
    # and nginx's own error pages no less (or a 413 there would be HTML)
    assert body_caps() == {
        "server": "1m",
        "= /functions/v1/media": "100m",
        "/_cps_errors/": "100m",
    }
    named = dict(re.findall(r'^\s+"~\^(/functions/v1/media)\S*"\s+(\d+);', SITE.read_text(), re.M))
    assert named == {"/functions/v1/media": str(settings["MEDIA_MAX_DOCUMENT_BYTES"])}
    assert re.search(r"^\s+default\s+1048576;", SITE.read_text(), re.M)
    env = env_example()
    assert directive("server") == env["BIND"]
    assert env["BIND"].startswith("127.0.0.1:")  # never exposed itself
    assert env["FORWARDED_ALLOW_IPS"] == "127.0.0.1"  # where nginx connects from, to loopback
    read_timeout = int(directive("proxy_read_timeout").rstrip("s"))
    assert read_timeout > gunicorn_conf()["timeout"]
    assert set(limits()) == {"cps_per_key", "cps_reports_per_key", "cps_per_address"}
    # The test substitutions find every place they change.
    site_for_test(SITE.read_text(), 1, 2, "/tmp/x")
    for unit in UNITS:
        text = (DEPLOY / unit).read_text()
        assert "EnvironmentFile=/etc/content-publishing/env\n" in text
    gunicorn_unit = (DEPLOY / UNITS[0]).read_text()
    assert "gunicorn -c gunicorn.conf.py wsgi:app" in gunicorn_unit
    backup_unit = (DEPLOY / BACKUP_UNITS[0]).read_text()
    assert "EnvironmentFile=/etc/content-publishing/env\n" in backup_unit
    assert "flask --app app backup /var/backups/content-publishing/" in backup_unit


def test_nginx_refusals_use_the_services_codes():
    answers = re.findall(r"return (\d{3}) '(\{.*\})\\n';", SITE.read_text())
    assert {int(status) for status, _ in answers} == {400, 404, 413, 414, 429, 431}
    for status, body in answers:
        error = json.loads(body)["error"]
        assert error["code"] == CODES[int(status)] and error["message"] and error["details"] == {}


def test_per_key_maps_find_every_key_the_service_accepts():
    """The per-key limit is keyed on the key-shaped token nginx finds in
    X-API-Key or Authorization: were auth.py's key format to change, the
    maps would find nothing and the limit would silently stop applying."""
    maps = re.findall(
        r'^map \$http_(x_api_key|authorization) \$\w+ \{\n\s+"~([^"]+)"', SITE.read_text(), re.M
    )
    assert {header for header, _ in maps} == {"x_api_key", "authorization"}
    alphabet = KEY_PREFIX + string.ascii_letters + string.digits
    keys = [generate_key() for _ in range(20)] + [alphabet, KEY_PREFIX + "a" * 128]
    for _, pattern in maps:
        token = re.compile(pattern.replace("(?<", "(?P<"))  # PCRE's named group, in Python
        for key in keys:
            assert is_well_formed(key)
            assert token.search(f"\t BEARER \t{key}\t\xa0").group(1) == key


def test_site_refuses_metrics_unless_allowed():
    """/metrics is denied to everyone until an `allow` line is added, and the
    refusal is the 404 of an unknown path."""
    block = re.search(r"^    location = /metrics \{\n(.*?)^    \}", SITE.read_text(), re.M | re.S)
    lines = [line.partition("#")[0].strip() for line in block.group(1).splitlines()]
    assert "deny all;" in lines and not [line for line in lines if line.startswith("allow")]
    assert re.search(r"^\s*error_page 403 =404 /_cps_errors/404;", SITE.read_text(), re.M)


def test_units_pass_systemd_analyze_verify():
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    for unit in (*UNITS, *BACKUP_UNITS):
        result = subprocess.run(
            ["systemd-analyze", "verify", str(DEPLOY / unit)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        # The only complaint allowed: the programs are not installed in /srv here.
        problems = [
            line
            for line in (result.stdout + result.stderr).splitlines()
            if not re.search(r"Command /srv/content-publishing/\S+ is not executable", line)
        ]
        assert not problems, problems
