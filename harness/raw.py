"""Raw bytes to a server, for requests no well-behaved client would send: a
malformed chunked body, a body cut off by a client that goes away, a path
that an HTTP library would tidy up first.

`exchange` sends the bytes, half-closes nothing unless asked, reads the
answer until the server closes or `timeout` passes, and returns (status or
None, headers with lower-case names, body bytes).
"""

import socket


def exchange(url_port, data, *, timeout=10.0, hang_up=False, half_close=False):
    """Send `data` to 127.0.0.1:`url_port`; with `hang_up`, close at once
    without reading (a client that goes away) and return None; with
    `half_close`, shut the sending side (the server reads the end of the
    stream) and read the answer."""
    with socket.create_connection(("127.0.0.1", url_port), timeout=timeout) as sock:
        sock.sendall(data)
        if hang_up:
            return None
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
    return parse(received)


def parse(received):
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("HTTP/"):
        return None, {}, received
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body
