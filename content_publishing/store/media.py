"""The media library's images and documents, kept in the database (BLOB /
bytea), so that every host and every backup has them; and the PNG
renditions of WebP images (LinkedIn takes no WebP), made once and kept."""

from content_publishing.store.db import dialect, execute, one, rows
from content_publishing.store.paging import Page, page

# Everything but the file itself, which only the file route reads.
COLUMNS = (
    "id, content_type, ext, bytes, width, height, pages, alt_text, sha256, created_at, version,"
    " created_by"
)


def find_upload(workspace_id, upload_sha256):
    """The workspace's media made from these exact uploaded bytes, or None."""
    return one(
        f"SELECT {COLUMNS} FROM media WHERE workspace_id = ? AND upload_sha256 = ?",
        (workspace_id, upload_sha256),
    )


def insert_media(workspace_id, media_id, fields, now, created_by=None):
    """The new item; `created_by`: the uploader's member id."""
    return one(
        "INSERT INTO media (id, workspace_id, content_type, ext, bytes, width, height, pages, sha256,"
        " upload_sha256, data, created_at, created_by)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}",
        (
            media_id,
            workspace_id,
            fields["content_type"],
            fields["ext"],
            fields["bytes"],
            fields["width"],
            fields["height"],
            fields.get("pages"),
            fields["sha256"],
            fields["upload_sha256"],
            fields["data"],
            now,
            created_by,
        ),
    )


def insert_rendition(media_id, fields, now):
    """The PNG a WebP is handed to LinkedIn as (made once: a second insert
    of the same media's is ignored)."""
    execute(
        "INSERT INTO media_renditions (media_id, content_type, ext, bytes, sha256, data,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (media_id) DO NOTHING",
        (
            media_id,
            fields["content_type"],
            fields["ext"],
            fields["bytes"],
            fields["sha256"],
            fields["data"],
            now,
        ),
    )


_SELECT = f"SELECT {COLUMNS} FROM media WHERE id = ? AND workspace_id = ?"


def get_media(workspace_id, media_id):
    return one(_SELECT, (media_id, workspace_id))


def lock_media(workspace_id, media_id):
    """The workspace's media, locked until the transaction ends (a delete or an
    alt text change)."""
    return one(_SELECT + dialect().for_update, (media_id, workspace_id))


def set_alt_text(workspace_id, media_id, alt_text):
    """The media's alt text, and its version + 1; returns its record."""
    return one(
        "UPDATE media SET alt_text = ?, version = version + 1 WHERE id = ? AND workspace_id = ?"
        f" RETURNING {COLUMNS}",
        (alt_text, media_id, workspace_id),
    )


def get_file(media_id, ext):
    """What serving `/media/<id>.<ext>` needs, whoever owns it (the id is
    the capability): the media's own file, or its PNG rendition. With
    workspace_id, for FLASK_MEDIA_PUBLIC=0. None if there is no such file."""
    found = one(
        f"SELECT workspace_id, {COLUMNS}, data FROM media WHERE id = ? AND ext = ?", (media_id, ext)
    )
    if found is not None:
        return found
    return one(
        "SELECT m.workspace_id, r.content_type, r.ext, r.sha256, r.data FROM media_renditions r"
        " JOIN media m ON m.id = r.media_id WHERE r.media_id = ? AND r.ext = ?",
        (media_id, ext),
    )


def list_media(workspace_id, query):
    found = page(
        "media",
        COLUMNS,
        ["workspace_id = ?"],
        [workspace_id],
        "created_at DESC, id DESC",
        query["limit"],
        query["offset"],
        after=query.get("cursor"),
    )
    return Page(found.rows, found.total, found.more)


def delete_media(workspace_id, media_id):
    execute("DELETE FROM media_renditions WHERE media_id = ?", (media_id,))
    execute("DELETE FROM media WHERE id = ? AND workspace_id = ?", (media_id, workspace_id))


def of_workspace(workspace_id, media_ids, share=False):
    """{id: record} of those of `media_ids` that are the workspace's. `share`:
    each found row is locked against a delete until the transaction ends
    (FOR SHARE on PostgreSQL; SQLite's write transaction holds the whole
    database already), so that a post that names it and a delete of it
    cannot both commit."""
    if not media_ids:
        return {}
    marks = ", ".join("?" * len(media_ids))
    lock = dialect().for_share if share else ""
    return {
        r["id"]: r
        for r in rows(
            f"SELECT {COLUMNS} FROM media WHERE workspace_id = ? AND id IN ({marks}) ORDER BY id{lock}",
            (workspace_id, *media_ids),
        )
    }


def for_plan(media_ids):
    """{id: record} with what a publish plan says of each (any workspace's: the
    ids come from the posts of one): its own file, and its PNG rendition's
    bytes and sha256 when it has one."""
    if not media_ids:
        return {}
    marks = ", ".join("?" * len(media_ids))
    return {
        r["id"]: r
        for r in rows(
            "SELECT m.id, m.content_type, m.ext, m.bytes, m.sha256, m.alt_text,"
            " r.bytes AS rendition_bytes, r.sha256 AS rendition_sha256 FROM media m"
            f" LEFT JOIN media_renditions r ON r.media_id = m.id WHERE m.id IN ({marks})",
            tuple(media_ids),
        )
    }


def reviewed_posts_naming(workspace_id, media_id):
    """Ids of the workspace's posts under review or holding an approval
    whose media_urls keep a reference to the media, in id order (the order
    the caller locks them in, before the media's row, as a post's own
    writes lock the post before its media)."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM posts WHERE workspace_id = ? AND media_urls LIKE ?"
            " AND (status IN ('In review', 'Approved') OR (approved_by IS NOT NULL"
            " AND status NOT IN ('Publishing', 'Published'))) ORDER BY id",
            (workspace_id, f'%"media:{media_id}.%'),
        )
    ]


def planned_posts_naming(workspace_id, media_id):
    """Ids of the workspace's Scheduled and Publishing posts whose media_urls
    keep a reference to the media (by its id: `media:<id>.<ext>`)."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM posts WHERE workspace_id = ? AND status IN ('Scheduled', 'Publishing')"
            " AND media_urls LIKE ? ORDER BY id",
            (workspace_id, f'%"media:{media_id}.%'),
        )
    ]
