"""The OpenAPI document and an interactive docs page, both without a key.

    GET /functions/v1/openapi.json          the document
    GET /functions/v1/docs                  Swagger UI
    GET /functions/v1/docs/assets/<file>    Swagger UI's files and the page's start-up script

Swagger UI's files come from the swagger-ui-bundle package, so the page
works on a machine with no internet access.
"""

from flask import Blueprint, current_app, render_template_string, send_from_directory
from swagger_ui_bundle import swagger_ui_path

from content_publishing import STATIC
from content_publishing.http.apidoc import build_spec

bp = Blueprint("docs", __name__, url_prefix="/functions/v1")


PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Content Publishing Service API</title>
  <link rel="stylesheet" href="{{ url_for('docs.asset', filename='swagger-ui.css') }}">
</head>
<body data-spec="{{ url_for('docs.openapi') }}">
  <div id="swagger-ui"></div>
  <script src="{{ url_for('docs.asset', filename='swagger-ui-bundle.js') }}"></script>
  <script src="{{ url_for('docs.asset', filename='docs.js') }}"></script>
</body>
</html>
"""
# Swagger UI sets style attributes, hence 'unsafe-inline' for styles (never
# for scripts); its icons are data: images.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@bp.get("/openapi.json")
def openapi():
    spec = current_app.extensions.get("openapi")
    if spec is None:
        spec = current_app.extensions["openapi"] = build_spec(current_app)
    return spec


@bp.get("/docs")
def docs():
    return render_template_string(PAGE), 200, PAGE_HEADERS


@bp.get("/docs/assets/<path:filename>")
def asset(filename):
    if filename == "docs.js":
        return send_from_directory(STATIC, filename)
    return send_from_directory(swagger_ui_path, filename)
