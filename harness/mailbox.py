"""A mail server on 127.0.0.1 that keeps what it is sent, for the kit's
notification by mail: the plain SMTP an n8n "Send Email" node speaks with
TLS off (EHLO, AUTH PLAIN or LOGIN, MAIL, RCPT, DATA, QUIT). `messages`
are email.message.Message objects, parsed with the standard library."""

import email
import email.policy
import socketserver
import threading

from harness.server import free_port


class Mailbox:
    """`with Mailbox() as mail:`; `mail.port`; `mail.messages`."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.messages = []
        self.lock = threading.Lock()
        self.server = None

    def __enter__(self):
        mailbox = self

        class Session(socketserver.StreamRequestHandler):
            def reply(self, line):
                self.wfile.write(line.encode() + b"\r\n")

            def handle(self):
                self.reply("220 127.0.0.1 ESMTP stand-in")
                data = None
                while line := self.rfile.readline():
                    if data is not None:
                        if line in (b".\r\n", b".\n"):
                            message = email.message_from_bytes(
                                b"".join(data), policy=email.policy.default
                            )
                            with mailbox.lock:
                                mailbox.messages.append(message)
                            data = None
                            self.reply("250 kept")
                        else:
                            data.append(line[1:] if line.startswith(b"..") else line)
                        continue
                    verb = line.split(b" ", 1)[0].strip().upper()
                    if verb == b"EHLO":
                        self.reply("250-127.0.0.1")
                        self.reply("250 AUTH PLAIN LOGIN")
                    elif verb == b"AUTH":
                        if line.strip().upper() == b"AUTH LOGIN":
                            self.reply("334 VXNlcm5hbWU6")
                            self.rfile.readline()
                            self.reply("334 UGFzc3dvcmQ6")
                            self.rfile.readline()
                        self.reply("235 accepted")
                    elif verb == b"DATA":
                        data = []
                        self.reply("354 end with .")
                    elif verb == b"QUIT":
                        self.reply("221 bye")
                        return
                    else:
                        self.reply("250 ok")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), Session)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
