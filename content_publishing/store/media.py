"""The media library's images, kept in the database (BLOB / bytea), so
that every host and every backup has them."""

from content_publishing.store.db import execute, one, rows
from content_publishing.store.paging import Page, page

# Everything but the image itself, which only the file route reads.
COLUMNS = "id, content_type, ext, bytes, width, height, sha256, created_at"


def find_upload(user_id, upload_sha256):
    """The user's media made from these exact uploaded bytes, or None."""
    return one(
        f"SELECT {COLUMNS} FROM media WHERE user_id = ? AND upload_sha256 = ?",
        (user_id, upload_sha256),
    )


def insert_media(user_id, media_id, fields, now):
    return one(
        "INSERT INTO media (id, user_id, content_type, ext, bytes, width, height, sha256,"
        " upload_sha256, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        f" RETURNING {COLUMNS}",
        (
            media_id,
            user_id,
            fields["content_type"],
            fields["ext"],
            fields["bytes"],
            fields["width"],
            fields["height"],
            fields["sha256"],
            fields["upload_sha256"],
            fields["data"],
            now,
        ),
    )


def get_media(user_id, media_id):
    return one(f"SELECT {COLUMNS} FROM media WHERE id = ? AND user_id = ?", (media_id, user_id))


def get_file(media_id):
    """The image and what serving it needs, whoever owns it: the id is the
    capability. With user_id, for FLASK_MEDIA_PUBLIC=0."""
    return one(f"SELECT user_id, {COLUMNS}, data FROM media WHERE id = ?", (media_id,))


def list_media(user_id, query):
    found = page(
        "media",
        COLUMNS,
        ["user_id = ?"],
        [user_id],
        "created_at DESC, id DESC",
        query["limit"],
        query["offset"],
        after=query.get("cursor"),
    )
    return Page(found.rows, found.total, found.more)


def delete_media(user_id, media_id):
    execute("DELETE FROM media WHERE id = ? AND user_id = ?", (media_id, user_id))


def planned_posts_naming(user_id, media_id):
    """Ids of the user's Scheduled and Publishing posts whose media_urls name
    the media (by its id, in whatever service address the URL was made)."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM posts WHERE user_id = ? AND status IN ('Scheduled', 'Publishing')"
            " AND media_urls LIKE ? ORDER BY id",
            (user_id, f"%/media/{media_id}.%"),
        )
    ]
