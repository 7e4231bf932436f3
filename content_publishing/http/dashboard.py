"""The publishing dashboard: a page over the public API, loaded without a key.

    GET /functions/v1/dashboard                  the page (static/dashboard/index.html)
    GET /functions/v1/dashboard/assets/<file>    its stylesheet, icon and JavaScript modules
    GET /                                        302 to the dashboard: where a browser lands first

Everything it shows comes from the public API with the key pasted into the
page; these routes serve files only, the page with one setting filled in:
the schedule lead time (FLASK_SCHEDULE_MIN_LEAD_SECONDS), so that its
date-time picker refuses exactly what the service would, before sending. The files are plain HTML, CSS and
JavaScript modules with no build step and nothing from another host, so the
page works offline, like the docs page.
"""

from flask import (
    Blueprint,
    current_app,
    redirect,
    render_template_string,
    send_from_directory,
    url_for,
)

from content_publishing import STATIC

bp = Blueprint("dashboard", __name__, url_prefix="/functions/v1")
root = Blueprint("root", __name__)
FILES = STATIC / "dashboard"

# Stricter than the docs page: no inline script or style at all (the page
# sets styles only through element.style from its modules, which a CSP
# allows), and it talks to this service alone.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@root.get("/")
def home():
    """Someone who opens the service's address in a browser wants the dashboard."""
    return redirect(url_for("dashboard.page"), 302)


@bp.get("/dashboard")
def page():
    html = render_template_string(
        (FILES / "index.html").read_text(encoding="utf-8"),
        lead_seconds=current_app.config["SCHEDULE_MIN_LEAD_SECONDS"],
    )
    return html, 200, PAGE_HEADERS


@bp.get("/dashboard/assets/<path:filename>")
def asset(filename):
    response = send_from_directory(FILES, filename)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
