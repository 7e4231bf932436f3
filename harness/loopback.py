"""An in-process HTTP server on a loopback port: what the webhook receiver
(harness.receiver) and the LinkedIn stand-in (harness.linkedin_standin)
share. A subclass sets `port` and gives start(), which calls serve() with
its request handler class."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive, and nothing written to stderr per request."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass


class _Server(ThreadingHTTPServer):
    # A listen backlog of a real server's size (nginx takes 511), not
    # socketserver's 5: a dispatcher's 16 senders connecting at once
    # overflowed that, and a connection dropped there waited a second for
    # TCP to try again, or was reset and its delivery retried 5 s later.
    request_queue_size = 128


class LoopbackServer:
    """serve(handler) starts it on 127.0.0.1:self.port in a daemon thread;
    stop() takes it down (the port refuses connections until started
    again); `with` starts and stops it."""

    server = None

    def serve(self, handler):
        self.server = _Server(("127.0.0.1", self.port), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
