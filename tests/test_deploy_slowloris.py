"""Slow clients against gunicorn with and without deploy/nginx.conf in front (marker `deploy`).

16 clients send a request head at one byte per second for 30 s, to two
identical services at once: one behind nginx, one bare. A normal request
(a keyed list read) goes to each every second meanwhile. Behind nginx every
one must be answered within 1 s; bare, the 4 sync workers are held by the
slow clients and none is. The figures are printed. About 35 s.
"""

import threading
import time

import pytest

from harness import Client, Nginx, SlowClients, create_key, nginx_binary, serve

pytestmark = [
    pytest.mark.deploy,
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (make nginx)"),
]

ATTACKERS, ATTACK_SECONDS = 16, 30.0
WARMUP = 3.0  # seconds for the slow clients to take every worker before probing
PROBE_TIMEOUT = 2.0  # a probe waits this long; "answered" means within 1 s
PROBE = "/functions/v1/api-v2-posts?limit=1"
WORKERS = 4  # gunicorn.conf.py's default


def probe_until(url, key, stop_at, results):
    """One request a second until `stop_at`: appends (ms, status) per probe."""
    while time.monotonic() < stop_at:
        started = time.monotonic()
        with Client(url, key, timeout=PROBE_TIMEOUT) as client:
            r = client.get(PROBE)
        results.append((r.ms, r.status))
        time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))


def summary(name, results):
    answered = [ms for ms, status in results if status == 200 and ms < 1000]
    slowest = max(ms for ms, _ in results)
    text = f"{len(answered)}/{len(results)} probes answered within 1 s"
    if answered:
        text += f", slowest answered {max(answered):.0f} ms"
    if len(answered) < len(results):
        text += (
            f"; the others got no answer within {PROBE_TIMEOUT:.0f} s (slowest {slowest:.0f} ms)"
        )
    return f"  {name:<18} {text}", answered


def test_slow_clients_hold_bare_gunicorn_but_not_nginx(tmp_path, capsys):
    proxied_dir, bare_dir = tmp_path / "proxied", tmp_path / "bare"
    proxied_dir.mkdir()
    bare_dir.mkdir()
    env = {"FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with (
        serve(proxied_dir, workers=WORKERS, env=env, log=proxied_dir / "gunicorn.log") as upstream,
        serve(bare_dir, workers=WORKERS, log=bare_dir / "gunicorn.log") as bare,
        Nginx(upstream.port, tmp_path / "nginx") as nginx,
    ):
        targets = {
            "through nginx": (nginx.url, create_key(upstream.database)),
            "gunicorn directly": (bare.url, create_key(bare.database)),
        }
        for url, key in targets.values():  # both answer before the attack
            assert Client(url, key, timeout=5).get(PROBE).status == 200

        attacks = {
            "through nginx": SlowClients(nginx.port, count=ATTACKERS, duration=ATTACK_SECONDS),
            "gunicorn directly": SlowClients(bare.port, count=ATTACKERS, duration=ATTACK_SECONDS),
        }
        started = time.monotonic()
        for attack in attacks.values():
            attack.start()
        time.sleep(WARMUP)
        stop_at = started + ATTACK_SECONDS - PROBE_TIMEOUT
        results = {name: [] for name in targets}
        probes = [
            threading.Thread(target=probe_until, args=(url, key, stop_at, results[name]))
            for name, (url, key) in targets.items()
        ]
        for thread in probes:
            thread.start()
        for thread in probes:
            thread.join(ATTACK_SECONDS + 10)
        for attack in attacks.values():
            attack.wait()
        ended = time.monotonic()

        # Once the slow clients are gone the bare service answers again.
        recovered = None
        while recovered is None and time.monotonic() < ended + 15:
            r = Client(bare.url, targets["gunicorn directly"][1], timeout=2).get(PROBE)
            if r.status == 200:
                recovered = time.monotonic() - ended
        timeouts = nginx.error_log().count("client timed out")

    lines, answered = [], {}
    for name in targets:
        line, answered[name] = summary(name, results[name])
        lines.append(line)
    with capsys.disabled():
        print(
            f"\n\nSlow clients: {ATTACKERS} connections, one byte a second for {ATTACK_SECONDS:.0f} s,"
            f" against {WORKERS} sync workers; one keyed GET a second from {WARMUP:.0f} s on:"
        )
        print("\n".join(lines))
        for name, attack in attacks.items():
            print(
                f"  {name:<18} slow connections opened {attack.opened}, closed by the server"
                f" {attack.closed_by_server}, bytes sent {attack.bytes_sent}"
            )
        print(f"  nginx closed {timeouts} slow connections at client_header_timeout (its log)")
        recovery = f"{recovered:.1f} s after" if recovered is not None else "not within 15 s of"
        print(f"  gunicorn directly answered again {recovery} the attack's end\n")

    proxied, direct = results["through nginx"], results["gunicorn directly"]
    assert len(proxied) >= 20 and len(answered["through nginx"]) == len(proxied), proxied
    assert direct and not answered["gunicorn directly"], direct
    assert recovered is not None
