"""The application factory: `flask --app app ...` and wsgi.py both use it."""

import os

import orjson
from flask import Flask, current_app, request
from flask.json.provider import DefaultJSONProvider
from flask_cors import CORS
from werkzeug.exceptions import NotFound

from content_publishing import dispatcher, errors, logs, settings
from content_publishing.cli import accounts as accounts_cli
from content_publishing.cli import backup as backup_cli
from content_publishing.cli import copy as copy_cli
from content_publishing.cli import keys as keys_cli
from content_publishing.cli import members as members_cli
from content_publishing.cli import schema as schema_cli
from content_publishing.cli import secrets as secrets_cli
from content_publishing.cli import webhooks as webhooks_cli
from content_publishing.http.apidoc import check_declarations
from content_publishing.schemas import media_refs
from content_publishing.serving import limits, metrics
from content_publishing.store import db

# Request headers a browser may send cross-origin (docs/api.md, "CORS").
CORS_ALLOW_HEADERS = [
    "authorization",
    "x-api-key",
    "x-client-info",
    "apikey",
    "content-type",
    "if-match",
    "idempotency-key",
    "x-request-id",
]
CORS_METHODS = ["GET", "POST", "PATCH", "DELETE", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Location", "X-Request-ID"]


class FastJSON(DefaultJSONProvider):
    """Flask's JSON out through orjson: a page of 20 posts cost 2.84 ms of CPU
    in process with the json module and 1.99 ms with orjson
    (docs/performance.md). Keys keep their order (sort_keys off), non-ASCII
    text goes out as UTF-8; a value orjson does not take (an integer past 64
    bits, say) goes out through the json module, as before. JSON in is read
    as before (http/common.py: json_body)."""

    sort_keys = False
    # Dates and dataclasses go to Flask's own `default`, shown as before.
    OPTIONS = (
        orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
    )

    def dumps(self, obj, **kwargs):
        if kwargs:
            return super().dumps(obj, **kwargs)
        try:
            return orjson.dumps(obj, default=self.default, option=self.OPTIONS).decode()
        except TypeError:
            return super().dumps(obj)

    def response(self, *args, **kwargs):
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, default=self.default, option=self.OPTIONS)
        except TypeError:
            body = super().dumps(obj).encode()
        return self._app.response_class(body + b"\n", mimetype=self.mimetype)


def create_app(test_config=None):
    """Create and configure the app.

    Settings (settings.py) come from FLASK_-prefixed environment variables
    (FLASK_DATABASE, FLASK_CORS_ORIGINS, ...), or from `test_config` in the tests.
    """
    app = Flask(__name__, instance_relative_config=True, static_folder=None)
    # werkzeug would answer `//` in a path with a redirect to the merged path,
    # built from the Host header: an open redirect. Such a path is a 404.
    app.url_map.merge_slashes = False
    app.config.from_mapping(settings.defaults(app.instance_path))
    if test_config is None:
        app.config.from_prefixed_env()
    else:
        app.config.from_mapping(test_config)
    settings.check(app.config, app.instance_path)
    app.json = FastJSON(app)
    os.makedirs(app.instance_path, exist_ok=True)

    app.wsgi_app = logs.RequestIds(app.wsgi_app)
    app.before_request(_refuse_leading_double_slash)
    app.before_request(_public_url)
    db.init_app(app)
    errors.init_app(app)
    limits.init_app(app)
    metrics.init_app(app)
    keys_cli.init_app(app)
    members_cli.init_app(app)
    accounts_cli.init_app(app)
    webhooks_cli.init_app(app)
    secrets_cli.init_app(app)
    backup_cli.init_app(app)
    dispatcher.init_app(app)
    copy_cli.init_app(app)
    schema_cli.init_app(app)
    CORS(
        app,
        origins=_origins(app.config["CORS_ORIGINS"]),
        allow_headers=CORS_ALLOW_HEADERS,
        methods=CORS_METHODS,
        expose_headers=CORS_EXPOSE_HEADERS,
        max_age=600,
        always_send=False,  # no Origin, no CORS headers: browsers always send it cross-origin
    )
    _cors_only_with_origin(app)
    app.after_request(_vary_on_origin)
    app.after_request(_no_sniffing)

    from content_publishing.http import (
        api,
        connect,
        dashboard,
        docs,
        health,
        media,
        members,
        session,
    )
    from content_publishing.http import metrics as metrics_page

    app.register_blueprint(health.bp)
    if app.config["METRICS"]:  # otherwise /metrics is a 404 like any unknown path
        app.register_blueprint(metrics_page.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(dashboard.root)
    app.register_blueprint(connect.callback)
    app.register_blueprint(media.files)
    app.register_blueprint(members.invites)
    app.register_blueprint(session.public)
    app.register_blueprint(api.bp)
    check_declarations(app)
    return app


def _cors_only_with_origin(app):
    """flask-cors matches every response against its resources, even one to a
    request without Origin that gets no CORS headers anyway; that was a tenth
    of the cost of reading a post. Let its hook run only when there is an
    Origin (browsers always send one cross-origin)."""
    hooks = app.after_request_funcs[None]
    for i, hook in enumerate(hooks):
        if hook.__name__ == "cors_after_request":
            hooks[i] = lambda response, hook=hook: (
                hook(response) if "Origin" in request.headers else response
            )
            return
    raise RuntimeError("flask-cors' after_request hook was not found")


def _public_url():
    """The service's address this answer shows library media at: the
    FLASK_PUBLIC_URL of the app answering (schemas/media_refs.py)."""
    media_refs.PUBLIC_URL.set(current_app.config["PUBLIC_URL"])


def _refuse_leading_double_slash():
    """gunicorn reads a request target `//functions/v1/api-v2-posts` as the
    path `/functions/v1/api-v2-posts` (and werkzeug would match it with its
    leading slashes stripped anyway), while a doubled slash anywhere else is
    a 404 (merge_slashes is off). A path has one spelling: this one is a 404
    too, judged on the target as sent, before the body or the key is read."""
    environ = request.environ
    target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or request.path
    if target.startswith("//"):
        raise NotFound()


def _no_sniffing(response):
    """Every answer says what it is; a browser must not guess another type
    from its bytes (an error text rendered as HTML, say)."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _vary_on_origin(response):
    """Every answer may differ by Origin (CORS headers only when one is sent,
    and only for listed origins), so a shared cache must key on it. Plain
    header text: werkzeug's `response.vary` (a set that parses and rewrites
    the header) cost 25 us a request."""
    vary = response.headers.get("Vary")
    if not vary:
        response.headers["Vary"] = "Origin"
    elif "origin" not in (part.strip().lower() for part in vary.split(",")):
        response.headers["Vary"] = f"{vary}, Origin"
    return response


def _origins(value):
    """`*`, a JSON list (from_prefixed_env parses it), or comma-separated."""
    if isinstance(value, str):
        value = [o.strip() for o in value.split(",") if o.strip()]
        return "*" if value == ["*"] else value
    return list(value)
