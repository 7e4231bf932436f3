"""Articles: /articles-api (list, create) and /articles-api-item/{id} (read, update).

An article is Draft or Published; publishing sets published_at and going
back to Draft clears it. No extra scope is involved, unlike posts.
"""

import uuid

from flask import Blueprint, g, url_for

import timestamps
from apidoc import doc, item_links
from auth import require_scope
from blueprints.common import check_if_match, get_owned, json_body, load_query, page_body, render, with_etag
from schemas.articles import (
    article_list_query_schema,
    article_schema,
    article_update_schema,
    articles_page_schema,
)
from store import articles as article_store
from store.db import transaction

bp = Blueprint("articles", __name__)


def get_article(article_id, db=None):
    """The caller's article, or 404: unknown, malformed and foreign ids alike."""
    return get_owned(article_store.get_article, article_id, "article", db)


def plan_update(article, changes, now):
    """Only what differs is written; a status move sets or clears published_at."""
    changes = {k: v for k, v in changes.items() if article.get(k) != v}
    if "status" in changes:
        changes["published_at"] = now if changes["status"] == "Published" else None
    return changes


@bp.get("/articles-api")
@doc("List the caller's articles", query=article_list_query_schema,
     response=articles_page_schema)
@require_scope("articles:read")
def list_articles():
    query = load_query(article_list_query_schema)
    rows, total = article_store.list_articles(g.user_id, query)
    return page_body(article_schema, rows, total, query)


@bp.post("/articles-api")
@doc(
    "Create an article draft",
    body=article_schema,
    response=article_schema,
    status=201,
    headers=["ETag", "Location"],
    links=item_links("Article", "article_id"),
)
@require_scope("articles:write")
def create_article():
    fields = article_schema.load(json_body())
    with transaction() as db:
        article = article_store.insert_article(
            db, g.user_id, str(uuid.uuid4()), fields, timestamps.now_text()
        )
    location = url_for("api.articles.get_article_item", article_id=article["id"])
    return with_etag(render(article_schema, article), article, 201, {"Location": location})


@bp.get("/articles-api-item/<article_id>")
@doc("Get one article", response=article_schema, headers=["ETag"])
@require_scope("articles:read")
def get_article_item(article_id):
    article = get_article(article_id)
    return with_etag(render(article_schema, article), article)


@bp.patch("/articles-api-item/<article_id>")
@doc("Update an article", body=article_update_schema, response=article_schema, errors=[412],
     headers=["ETag"], request_headers=["If-Match"],
     description="Draft -> Published sets published_at; back to Draft clears it.")
@require_scope("articles:write")
def update_article_item(article_id):
    changes = article_update_schema.load(json_body())
    with transaction() as db:
        article = get_article(article_id, db)
        check_if_match(article)
        now = timestamps.now_text()
        columns = plan_update(article, changes, now)
        if columns:
            article = article_store.update_article(db, g.user_id, article["id"], columns, now)
    return with_etag(render(article_schema, article), article)
