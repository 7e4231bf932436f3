"""Articles.

GET    /functions/v1/articles-api            list (articles:read)
POST   /functions/v1/articles-api            create a Draft (articles:write)
GET    /functions/v1/articles-api-item/{id}  read (articles:read)
PATCH  /functions/v1/articles-api-item/{id}  update, publish (articles:write)
DELETE /functions/v1/articles-api-item/{id}  delete (articles:write)
"""

from flask import Blueprint, g, url_for

from content_publishing import articles, timestamps
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc, item_links
from content_publishing.http.common import (
    check_if_match,
    get_owned,
    idempotency_key,
    page_body,
    render,
    with_etag,
)
from content_publishing.schemas.articles import (
    article_list_query_schema,
    article_schema,
    article_update_schema,
    articles_page_schema,
)
from content_publishing.store import articles as article_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("articles", __name__)


@bp.get("/articles-api")
@doc("List the caller's articles", query=article_list_query_schema, response=articles_page_schema)
@require_scope("articles:read")
def list_articles(query):
    with snapshot():
        page = article_store.list_articles(g.workspace_id, query)
    return page_body(article_schema, page, query)


@bp.post("/articles-api")
@doc(
    "Create an article draft",
    body=article_schema,
    response=article_schema,
    status=201,
    errors=[409],
    headers=["ETag", "Location"],
    request_headers=["Idempotency-Key"],
    links=item_links("Article", "article_id"),
    description="Always creates a Draft. The same Idempotency-Key with the same fields returns "
    "the first article; with other fields it is a 409.",
)
@require_scope("articles:write")
def create_article(body):
    key, now = idempotency_key(), timestamps.now_text()
    with transaction():
        article = articles.create(g.workspace_id, body, key, now)
    location = url_for("api.articles.get_article_item", article_id=article["id"])
    return with_etag(render(article_schema, article), article, 201, {"Location": location})


@bp.get("/articles-api-item/<article_id>")
@doc("Get one article", response=article_schema, headers=["ETag"])
@require_scope("articles:read")
def get_article_item(article_id):
    article = get_owned(article_store.get_article, article_id, "article")
    return with_etag(render(article_schema, article), article)


@bp.patch("/articles-api-item/<article_id>")
@doc(
    "Update an article",
    body=article_update_schema,
    response=article_schema,
    errors=[412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Draft -> Published sets published_at; back to Draft clears it.",
)
@require_scope("articles:write")
def update_article_item(article_id, body):
    with transaction():
        article = get_owned(article_store.lock_article, article_id, "article")
        check_if_match(article)
        article = articles.update(g.workspace_id, article, body, timestamps.now_text())
    return with_etag(render(article_schema, article), article)


@bp.delete("/articles-api-item/<article_id>")
@doc(
    "Delete an article",
    status=204,
    errors=[412],
    request_headers=["If-Match"],
    description="Any article, Draft or Published. An Idempotency-Key that named it is forgotten.",
)
@require_scope("articles:write")
def delete_article_item(article_id):
    with transaction():
        article = get_owned(article_store.lock_article, article_id, "article")
        check_if_match(article)
        articles.delete(g.workspace_id, article)
    return "", 204
