"""Everything that drives a real server: the tests against gunicorn,
`python -m bench` and `python -m faults` use this one package.

    paths         ROOT (the checkout) and BIN (the virtualenv's programs)
    process       Process: start in its own process group, wait until ready,
                  stop, SIGKILL the group, run a start that must fail; stop_all()
    server        Gunicorn(Process) on a free loopback port; serve()
    flask_cli     flask_cli(), init_database(), create_key(), FlaskCommand(Process)
    http_client   Client and Response: the one HTTP client
    api           the service's URLs; read_posts() through the API
    ledger        Ledger: acknowledged writes and the checks they must pass
    claims        schedule_posts() and drain(): due posts and concurrent claimers
    load          run_load(): client threads writing through a Ledger
    receiver      Receiver: a webhook receiver that verifies signatures, answers as scripted
    linkedin_standin  LinkedInStandIn: LinkedIn's sign-in and its Posts, Images, Documents
                  and Comments APIs (linkedin_accounts: members, apps, tokens, OAuth)
    linkedin_signin   the stand-in set up for this service, and a channel connected as a person does
    publish_plan  run(): a publish plan run as an automation runs it (uploads, post, comment)
    loopback      LoopbackServer: the in-process HTTP server the two above share
    linkedin_rules    what LinkedIn checks in a request (headers, bodies, escaping)
    mailbox       Mailbox: an SMTP server that keeps the mail it is sent
    smtp_sink     SmtpSink: aiosmtpd on loopback, keeping mail, asking a login, refusing on cue
    n8n           install() a pinned n8n with Node 24; N8n: start, import, execute, kill
    n8n_workflows the n8n kit's workflows, written once; writes integrations/n8n/*.json
    supabase_js   invoke(): supabase-js's functions.invoke calls (supabase_invoke.mjs), Node 24
    postgres      fresh PostgreSQL databases (a schema each) for the second backend
    nginx         Nginx(Process): the shipped deploy/nginx.conf in front of a server
    slowloris     SlowClients: connections that send a request head a byte at a time
    sqlite_direct the few checks that must open the SQLite file itself
    mcp_client    the MCP server (content_publishing/mcp/) over HTTP, and the MCP SDK's
                  client over stdio and HTTP (imported by its tests alone: the SDK is an extra)

Kept in one place so that "start the service", "send a request" and "no
acknowledged write was lost" mean the same thing in every tool, and a
change to how the service runs is made once.
"""

from harness.api import CALLBACK, ITEM, POSTS, read_posts, rfc3339
from harness.flask_cli import Dispatcher, FlaskCommand, create_key, flask_cli, init_database
from harness.http_client import Client, Response
from harness.ledger import Check, Ledger
from harness.load import MIXED, WRITES, Mix, Targets, prepare_posts, run_load, unique
from harness.nginx import Nginx, nginx_binary
from harness.paths import BIN, ROOT
from harness.process import Exit, Process, ProcessExited, stop_all
from harness.receiver import Answer, Arrival, Receiver
from harness.server import Gunicorn, free_port, serve
from harness.slowloris import SlowClients

__all__ = [
    "Answer",
    "Arrival",
    "BIN",
    "CALLBACK",
    "ITEM",
    "MIXED",
    "POSTS",
    "ROOT",
    "WRITES",
    "Check",
    "Client",
    "Dispatcher",
    "Exit",
    "FlaskCommand",
    "Gunicorn",
    "Ledger",
    "Mix",
    "Nginx",
    "Process",
    "ProcessExited",
    "Receiver",
    "Response",
    "SlowClients",
    "Targets",
    "create_key",
    "flask_cli",
    "free_port",
    "init_database",
    "nginx_binary",
    "prepare_posts",
    "read_posts",
    "rfc3339",
    "run_load",
    "serve",
    "stop_all",
    "unique",
]
