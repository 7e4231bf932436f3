"""The OpenAPI document and an interactive docs page, both without a key.

Swagger UI's files come from the swagger-ui-bundle package, so the page
works on a machine with no internet access.
"""

from flask import Blueprint, current_app, render_template_string, send_from_directory
from swagger_ui_bundle import swagger_ui_path

from apidoc import build_spec

bp = Blueprint("docs", __name__, url_prefix="/functions/v1")

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Content Publishing Service API</title>
  <link rel="stylesheet" href="{{ url_for('docs.asset', filename='swagger-ui.css') }}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{{ url_for('docs.asset', filename='swagger-ui-bundle.js') }}"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "{{ url_for('docs.openapi') }}",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
    });
  </script>
</body>
</html>
"""


@bp.get("/openapi.json")
def openapi():
    spec = current_app.extensions.get("openapi")
    if spec is None:
        spec = current_app.extensions["openapi"] = build_spec(current_app)
    return spec


@bp.get("/docs")
def docs():
    return render_template_string(PAGE)


@bp.get("/docs/assets/<path:filename>")
def asset(filename):
    return send_from_directory(swagger_ui_path, filename)
