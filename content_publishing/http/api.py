"""The authenticated API under /functions/v1.

Every endpoint group is a blueprint nested in this one, so the key and scope
checks in `before_request` run for all of them and none can forget them.
"""

from flask import Blueprint

from content_publishing import auth
from content_publishing.http import (
    account,
    analytics,
    articles,
    callback,
    channels,
    connect,
    cookies,
    hashtags,
    me,
    media,
    members,
    planning,
    posts,
    reviews,
    session,
    stats,
    webhooks,
    workspace,
)

bp = Blueprint("api", __name__, url_prefix="/functions/v1")
bp.before_request(cookies.authenticate)  # a key as auth.py judges it, or a session
bp.before_request(auth.authorize)
bp.after_request(auth.touch_after_response)
bp.after_request(cookies.touch_after_response)


@bp.after_request
def no_store(response):
    """Answers to a key are its workspace's data: no cache may keep them."""
    response.headers["Cache-Control"] = "no-store"
    return response


bp.after_request(auth.settle_key_check)  # registered last, so it runs first


bp.register_blueprint(posts.bp)
bp.register_blueprint(callback.bp)
bp.register_blueprint(articles.bp)
bp.register_blueprint(webhooks.bp)
bp.register_blueprint(me.bp)
bp.register_blueprint(channels.bp)
bp.register_blueprint(connect.bp)
bp.register_blueprint(planning.bp)
bp.register_blueprint(media.bp)
bp.register_blueprint(stats.bp)
bp.register_blueprint(analytics.bp)
bp.register_blueprint(hashtags.bp)
bp.register_blueprint(members.bp)
bp.register_blueprint(reviews.bp)
bp.register_blueprint(workspace.bp)
bp.register_blueprint(session.bp)
bp.register_blueprint(account.bp)
