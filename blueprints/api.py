"""The authenticated API under /functions/v1.

Every endpoint group is a blueprint nested in this one, so the key check in
`before_request` runs for all of them and none can forget it.
"""

from flask import Blueprint

import auth
from blueprints import articles, callback, posts

bp = Blueprint("api", __name__, url_prefix="/functions/v1")
bp.before_request(auth.authenticate)
bp.after_request(auth.touch_after_response)
bp.register_blueprint(posts.bp)
bp.register_blueprint(callback.bp)
bp.register_blueprint(articles.bp)
