"""Posts, their handoffs to the automation, and their deletion."""

import uuid

from content_publishing.store import comments, history, stats
from content_publishing.store.db import dialect, execute, one, rows, value
from content_publishing.store.idempotency import post_keys
from content_publishing.store.paging import POST_KINDS, Page, page
from content_publishing.store.records import OwnedTable
from content_publishing.store.search import search_posts

# handoff_acknowledged, handoff_error, handoff_holder, handoff_sending_at and
# retry_not_before are internal: read for the expiry rule (posts.current) and
# the service's own publisher, never shown.
COLUMNS = (
    "id, channel_id, type, brand_id, content, media_urls, media_alt, document_title, first_comment, status,"
    " scheduled_at, published_at, linkedin_post_id, live_url, last_error, first_comment_urn,"
    " first_comment_error, handoff_id, handoff_expires_at, handoff_count,"
    " handoff_acknowledged, handoff_error, handoff_holder, handoff_sending_at, retry_not_before,"
    " repeat, series_id, occurrence, series_start, series_continued, recycled_from,"
    " created_at, updated_at,"
    " version, created_by, (SELECT name FROM members WHERE id = created_by) AS author_name,"
    " approved_by, (SELECT name FROM members WHERE id = approved_by) AS approver_name,"
    " approved_at, reviewed_by, (SELECT name FROM members WHERE id = reviewed_by) AS reviewer_name,"
    " intended_at, queue_on_approval"
)  # (the subqueries: members' names, from members, whose ids are theirs; posts has no name)
# What a post carries: its channel (channel_id, with the type and brand_id
# the channel makes it) and what it says and shows. A series' next
# occurrence, a recycled copy and an import row each carry these whole.
CARRIED = (
    "channel_id",
    "type",
    "brand_id",
    "content",
    "media_urls",
    "media_alt",
    "document_title",
    "first_comment",
)
# What a new post may be written with: a create's fields, and a Scheduled
# status and a place in a series for an import row or a series' next
# occurrence, and the original of a recycled copy.
INSERTABLE = (
    *CARRIED,
    "scheduled_at",
    "repeat",
    "status",
    "series_id",
    "occurrence",
    "series_start",
    "recycled_from",
    "created_by",
    "approved_by",  # a series' next occurrence keeps its approval
    "approved_at",
    "reviewed_by",
    "intended_at",  # the intent of a post submitted for review (posts/approvals.py)
    "queue_on_approval",
)


def _member(record, column, name):
    """A member the post names ({id, name}), or None."""
    if record.get(column) is None:
        return None
    return {"id": record[column], "name": record.get(name)}


def _shape(record):
    """The record as the API shows it: its author (None for a post the
    service made before it kept authors), the approval that holds and the
    member who last reviewed it, each {id, name}."""
    return {
        **_aligned(record),
        "stats": None,
        "author": _member(record, "created_by", "author_name"),
        "approver": _member(record, "approved_by", "approver_name"),
        "reviewer": _member(record, "reviewed_by", "reviewer_name"),
        "intent": _intent(record),
        "retrying": _retrying(record),
    }


def _retrying(record):
    """A Scheduled post the service's own publisher gave back untried, to
    try again: {cause, next_try_at, tries}; None otherwise."""
    if record["status"] != "Scheduled" or not record.get("retry_not_before"):
        return None
    if not record.get("handoff_error"):
        return None
    return {
        "cause": record["handoff_error"],
        "next_try_at": record["retry_not_before"],
        "tries": record.get("handoff_count") or 0,
    }


def _intent(record):
    """What happens when the post is approved: {queue: true} or
    {scheduled_at}; None: it stays Approved."""
    if record.get("queue_on_approval"):
        return {"queue": True, "scheduled_at": None}
    if record.get("intended_at"):
        return {"queue": False, "scheduled_at": record["intended_at"]}
    return None


def _aligned(record):
    """media_alt has an entry (null: the item's own) for each of media_urls,
    whatever was stored: a post from before alt text stored none."""
    alt, count = record["media_alt"] or [], len(record["media_urls"])
    if len(alt) != count:
        record["media_alt"] = (alt + [None] * count)[:count]
    return record


posts = OwnedTable(
    "posts",
    COLUMNS,
    json_columns=["media_urls", "media_alt"],
    bool_columns=["queue_on_approval"],
    # _with_stats gives a Published post its own stats
    shape=_shape,
    writable=[
        *INSERTABLE,
        "published_at",
        "linkedin_post_id",
        "live_url",
        "last_error",
        "first_comment_urn",
        "first_comment_error",
        "handoff_id",
        "handoff_expires_at",
        "handoff_acknowledged",
        "handoff_error",
        "handoff_holder",
        "handoff_sending_at",
        "retry_not_before",
        "series_continued",
        "comment_due_at",
        "comment_sending_at",
    ],
)
ORDERS = {
    "-created_at": lambda: "created_at DESC, id DESC",
    "scheduled_at": lambda: dialect().scheduled_order,  # soonest first, unscheduled last
    "-impressions": lambda: stats.order_by_latest("impressions"),
    "-engagement": lambda: stats.order_by_latest("engagement"),
}
# A lease of an automation's handoff that ran out; the service's own
# publisher settles its own (SERVICE_EXPIRED), since it knows whether it sent.
EXPIRED = "status = 'Publishing' AND handoff_expires_at <= ? AND handoff_holder = 'automation'"
SERVICE_EXPIRED = "status = 'Publishing' AND handoff_expires_at <= ? AND handoff_holder = 'service'"
# A post whose channel the service publishes itself (publisher 'linkedin'):
# never offered to a claim or a post.due push.
_BY_SERVICE = (
    "EXISTS (SELECT 1 FROM channels c WHERE c.workspace_id = p.workspace_id AND c.publisher = 'linkedin'"
    " AND c.id = p.channel_id)"
)


def _with_stats(records):
    """The records, each with `stats`: its latest snapshot's figures, or
    None. Only a Published post can have any, so a read of others costs no
    second statement."""
    published = [r["id"] for r in records if r is not None and r["status"] == "Published"]
    if published:
        latest = stats.latest_of(published)
        for record in records:
            if record is not None:
                record["stats"] = latest.get(record["id"])
    return records


def get_post(workspace_id, post_id):
    return _with_stats([posts.get(workspace_id, post_id)])[0]


def lock_post(workspace_id, post_id):
    return _with_stats([posts.lock(workspace_id, post_id)])[0]


def insert_post(workspace_id, post_id, fields, now, placed_by=None):
    """The new post's record. Without a channel_id in `fields` (a post of
    the reference interface: type and brand_id), its channel is placed by
    the statement itself (channels/placement.py's rule in SQL: a create
    stays one round trip), and the record says what it found of that
    channel in `placed`: {type, others_may_post, member_id, member_name},
    or None when it is not set up, for the domain to refuse what the
    channel does not allow (the transaction then rolls the row back).
    `placed_by`: the writer, whose own profile a personal post goes to."""
    kept = {k: fields[k] for k in INSERTABLE if k in fields}
    if kept.get("channel_id"):
        return posts.insert(workspace_id, post_id, kept, now)
    if kept.get("type") not in ("personal", "brand"):
        raise ValueError("a post is written with its channel_id, or its type")
    kept.pop("channel_id", None)
    values = {k: posts._store(k, v) for k, v in kept.items()}
    if kept["type"] == "brand":
        channel, channel_params = "?", [kept["brand_id"]]
    else:
        channel, channel_params = _PERSONAL_CHANNEL, [workspace_id, placed_by, workspace_id]
    names = ", ".join(["id", "workspace_id", *values, "channel_id", "created_at", "updated_at"])
    marks = ", ".join("?" * (len(values) + 2))
    row = one(
        f"INSERT INTO posts ({names}) VALUES ({marks}, {channel}, ?, ?)"
        f" RETURNING {COLUMNS}, {_PLACED}",
        (post_id, workspace_id, *values.values(), *channel_params, now, now),
    )
    record = posts.record({k: v for k, v in row.items() if not k.startswith("placed_")})
    record["placed"] = (
        None
        if row["placed_type"] is None
        else {k.removeprefix("placed_"): v for k, v in row.items() if k.startswith("placed_")}
    )
    return record


# A personal post that names no channel: the writer's own profile, else the
# workspace's first of a member still in it, else `personal`
# (channels/placement.py: personal_for, the same rule).
_PERSONAL_CHANNEL = (
    "COALESCE((SELECT id FROM channels WHERE workspace_id = ? AND member_id = ?),"
    " (SELECT c.id FROM channels c JOIN members m ON m.id = c.member_id"
    " WHERE c.workspace_id = ? AND c.type = 'personal' AND m.removed_at IS NULL"
    " ORDER BY c.created_at, c.id LIMIT 1), 'personal')"
)
_PLACED = ", ".join(
    f"(SELECT {column} FROM channels c WHERE c.workspace_id = posts.workspace_id"
    f" AND c.id = posts.channel_id) AS placed_{name}"
    for name, column in (
        ("type", "c.type"),
        ("others_may_post", "c.others_may_post"),
        ("member_id", "c.member_id"),
        ("member_name", "(SELECT name FROM members WHERE id = c.member_id)"),
    )
)


def update_post(workspace_id, post_id, changes, now, expected_version=None):
    """The changed record (None: given `expected_version`, the post is at
    another one, and nothing was written). A change of status cannot leave
    a post with stats (they come after it is Published, which is final), so
    only an unchanged status is looked up."""
    changed = posts.update(workspace_id, post_id, changes, now, expected_version)
    return changed if "status" in changes or changed is None else _with_stats([changed])[0]


def delete_post(workspace_id, post_id):
    """Remove the post, its history and the idempotency keys that named it."""
    post_keys.forget(workspace_id, post_id)
    history.forget(post_id)
    comments.forget(post_id)
    return posts.delete(workspace_id, post_id)


def list_posts(workspace_id, query, now, search_ms=None):
    """One page of the workspace's posts matching the query's filters, and the
    total. A search (`q`) is stopped after `search_ms` (store/search.py)."""
    where, params, counted = ["workspace_id = ?"], [workspace_id], {}
    for column in ("status", "type"):
        if query.get(column):
            where.append(f"{column} = ?")
            params.append(query[column])
            counted[column] = query[column]
    if query.get("brand_id"):
        where.append("brand_id = ?")
        params.append(query["brand_id"])
    if query.get("channel_id"):
        where.append("channel_id = ?")
        params.append(query["channel_id"])
    if query.get("scheduled_before"):
        where.append("scheduled_at < ?")
        params.append(query["scheduled_before"])
    if query.get("scheduled_after"):
        where.append("scheduled_at >= ?")
        params.append(query["scheduled_after"])
    if query.get("due"):
        where += ["status = ?", "scheduled_at <= ?"]
        params += ["Scheduled", now]
    if query.get("series_id"):
        where += ["series_id IS NOT NULL", "series_id = ?"]
        params.append(str(query["series_id"]))
    # content_counts answers `total` unless a time filter is in play.
    by_counts = len(where) == 1 + len(counted)
    kinds = [POST_KINDS[query["type"]]] if query.get("type") else list(POST_KINDS.values())
    counts = (workspace_id, kinds, query.get("status")) if by_counts else None
    order, limit, offset, after = (
        ORDERS[query["order"]](),
        query["limit"],
        query["offset"],
        query.get("cursor"),
    )
    if query.get("q"):
        found = search_posts(
            COLUMNS, where, params, query["q"], order, limit, offset, after, counts, search_ms
        )
        estimate = found.estimate
    else:
        found = page("posts", COLUMNS, where, params, order, limit, offset, counts, after)
        estimate = False
    return Page(
        _with_stats([posts.record(r) for r in found.rows]), found.total, found.more, estimate
    )


def claim_due(workspace_id, now, limit, expires_at, post_type=None, sendable=None):
    """Hand up to `limit` of the workspace's due posts (Scheduled, scheduled_at <=
    now), soonest first, to one caller: each becomes Publishing with a new
    handoff_id (a UUID made here), handoff_expires_at, handoff_count + 1 and
    version + 1.

    `sendable(content)` False: a due post that must not be handed over. It
    is left Scheduled, and locked, for the caller to fail. Returns (the
    records handed over, in that order; [(workspace_id, id)] of those held back).

    Inside a transaction. SQLite's write transaction keeps a second claimer
    out until this one commits; on PostgreSQL the rows are locked with SKIP
    LOCKED, so a concurrent claimer takes other rows instead of these.
    """
    where = f"p.workspace_id = ? AND p.status = 'Scheduled' AND p.scheduled_at <= ? AND NOT {_BY_SERVICE}"
    params = [workspace_id, now]
    if post_type:
        where += " AND p.type = ?"
        params.append(post_type)
    found = rows(
        f"SELECT p.id, p.workspace_id, p.content FROM posts p WHERE {where}"
        " ORDER BY p.scheduled_at, p.id LIMIT ?" + dialect().skip_locked,
        (*params, limit),
    )
    found, held = _sendable(found, sendable)
    if not found:
        return [], held
    ids = [r["id"] for r in found]
    return _hand_off(ids, [expires_at] * len(ids), now, acknowledged=True), held


def _sendable(found, sendable):
    """(the rows that may be handed over, [(workspace_id, id)] of those held back)."""
    if sendable is None:
        return found, []
    kept, held = [], []
    for r in found:
        (kept if sendable(r["content"]) else held).append(r)
    return kept, [(r["workspace_id"], r["id"]) for r in held]


def _hand_off(ids, expiries, now, acknowledged, holder="automation"):
    """Hand the posts over in one statement (each its own new handoff_id and
    expiry) to `holder` (an automation, or the service's own publisher);
    their records, in the order of `ids`."""
    cases = " ".join(["WHEN ? THEN ?"] * len(ids))
    handoffs = [v for post_id in ids for v in (post_id, str(uuid.uuid4()))]
    expiring = [v for pair in zip(ids, expiries, strict=True) for v in pair]
    found = {
        r["id"]: r
        for r in rows(
            f"UPDATE posts SET status = 'Publishing', handoff_id = CASE id {cases} END,"
            f" handoff_expires_at = CASE id {cases} END, handoff_acknowledged = ?,"
            " handoff_error = NULL, handoff_holder = ?, handoff_sending_at = NULL,"
            " retry_not_before = NULL, handoff_count = handoff_count + 1, updated_at = ?,"
            f" version = version + 1 WHERE id IN ({', '.join('?' * len(ids))})"
            f" RETURNING workspace_id, {COLUMNS}",
            (*handoffs, *expiring, int(acknowledged), holder, now, *ids),
        )
    }
    return [posts.record(found[post_id]) for post_id in ids]


def _records_in_order(ids):
    found = {
        r["id"]: r
        for r in rows(
            f"SELECT workspace_id, {COLUMNS} FROM posts WHERE id IN ({', '.join('?' * len(ids))})",
            ids,
        )
    }
    return _with_stats([posts.record(found[post_id]) for post_id in ids])


_PUSH_ENDPOINT = (
    "EXISTS (SELECT 1 FROM webhook_endpoints e"
    " WHERE e.workspace_id = p.workspace_id AND e.enabled = 1 AND e.events LIKE '%\"post.due\"%')"
    f" AND NOT {_BY_SERVICE}"
)
PUSHABLE = f"p.status = 'Scheduled' AND p.scheduled_at <= ? AND {_PUSH_ENDPOINT}"
# Due after the first and up to the second time: a short stretch, so that
# posts of workspaces who claim instead are never walked far.
PUSHABLE_SOON = (
    f"p.status = 'Scheduled' AND p.scheduled_at > ? AND p.scheduled_at <= ? AND {_PUSH_ENDPOINT}"
)


def push_due(now, limit, expires_at, sendable=None):
    """Hand due posts of workspaces who have an enabled post.due webhook endpoint to
    that endpoint, soonest first: like claim_due, but not yet acknowledged,
    and with handoff_expires_at = expires_at(scheduled_at), the deadline for a
    2xx. Returns (their records, each with its workspace_id; [(workspace_id, id)] of
    those held back by `sendable`, as claim_due)."""
    found = rows(
        f"SELECT p.id, p.workspace_id, p.scheduled_at, p.content FROM posts p WHERE {PUSHABLE}"
        " ORDER BY p.scheduled_at, p.id LIMIT ?" + dialect().skip_locked,
        (now, limit),
    )
    found, held = _sendable(found, sendable)
    if not found:
        return [], held
    ids = [r["id"] for r in found]
    expiries = [expires_at(r["scheduled_at"]) for r in found]
    return _hand_off(ids, expiries, now, acknowledged=False), held


def handoff(post_id):
    """status, handoff_id, handoff_expires_at and handoff_acknowledged of a post, or None."""
    return one(
        "SELECT status, handoff_id, handoff_expires_at, handoff_acknowledged FROM posts WHERE id = ?",
        (post_id,),
    )


def acknowledge_handoffs(handoffs, now, expires_at):
    """The automation took these pushed posts (a 2xx): for each (post_id,
    handoff_id), its lease starts now, only while that handoff is current
    and unacknowledged. One statement; [{id, workspace_id, handoff_id}] of those
    acknowledged."""
    if not handoffs:
        return []
    ids = [post_id for post_id, _ in handoffs]
    pairs = ", ".join(["(?, ?)"] * len(handoffs))
    return rows(
        "UPDATE posts SET handoff_acknowledged = 1, handoff_error = NULL, handoff_expires_at = ?,"
        " updated_at = ?, version = version + 1"
        f" WHERE id IN ({', '.join('?' * len(ids))}) AND (id, handoff_id) IN (VALUES {pairs})"
        " AND status = 'Publishing' AND handoff_acknowledged = 0 AND handoff_expires_at > ?"
        " RETURNING id, workspace_id, handoff_id",
        (expires_at, now, *ids, *[v for pair in handoffs for v in pair], now),
    )


def note_handoff_error(post_id, handoff_id, error):
    """The last failed delivery of a pushed handoff, for its last_error if no
    delivery is ever acknowledged. Internal: no new version."""
    execute(
        "UPDATE posts SET handoff_error = ? WHERE id = ? AND status = 'Publishing'"
        " AND handoff_id = ? AND handoff_acknowledged = 0",
        (error, post_id, handoff_id),
    )


def has_expired_handoffs(now, workspace_id=None):
    """Whether any handoff (of one workspace, or any) ran out by `now` without a result."""
    if workspace_id is None:
        return value(f"SELECT 1 FROM posts WHERE {EXPIRED} LIMIT 1", (now,)) == 1
    return (
        value(
            f"SELECT 1 FROM posts WHERE {EXPIRED} AND workspace_id = ? LIMIT 1", (now, workspace_id)
        )
        == 1
    )


def expire_handoffs(now, errors, workspace_id=None):
    """Every Publishing post whose lease ran out by `now` (of one workspace, or
    all) becomes Failed, as of its handoff_expires_at: that is its updated_at,
    its version grows by one, and its last_error is, for an acknowledged
    handoff, errors[0] + the expiry time + errors[1]; for a pushed one never
    acknowledged, errors[2] + the expiry time + errors[3] + its last delivery
    error. Returns [{id, workspace_id}] of the posts changed."""
    where, params = EXPIRED, [now]
    if workspace_id is not None:
        where += " AND workspace_id = ?"
        params.append(workspace_id)
    return rows(
        "UPDATE posts SET status = 'Failed', last_error = CASE WHEN handoff_acknowledged = 1"
        " THEN ? || handoff_expires_at || ? ELSE ? || handoff_expires_at || ?"
        " || COALESCE(handoff_error, 'none') END, handoff_id = NULL, handoff_expires_at = NULL,"
        " handoff_acknowledged = 1, handoff_error = NULL, updated_at = handoff_expires_at,"
        f" version = version + 1 WHERE {where} RETURNING id, workspace_id",
        (*errors, *params),
    )


def expired_handoffs(now, workspace_id=None):
    """{post id: (handoff_id, handoff_expires_at)} of the handoffs that ran
    out by `now`, read before expire_handoffs clears them (for the history)."""
    where, params = EXPIRED, [now]
    if workspace_id is not None:
        where += " AND workspace_id = ?"
        params.append(workspace_id)
    return {
        r["id"]: (r["handoff_id"], r["handoff_expires_at"])
        for r in rows(f"SELECT id, handoff_id, handoff_expires_at FROM posts WHERE {where}", params)
    }


def expired_series_occurrences(now, workspace_id=None):
    """[{id, workspace_id}] of expired handoffs whose post continues a series,
    which are settled one by one (posts.settle_all)."""
    where, params = f"{EXPIRED} AND repeat IS NOT NULL AND series_continued = 0", [now]
    if workspace_id is not None:
        where += " AND workspace_id = ?"
        params.append(workspace_id)
    return rows(f"SELECT id, workspace_id FROM posts WHERE {where}", params)


def series_heads(workspace_id, before):
    """The workspace's posts that a series continues from: Scheduled or
    Publishing, with a repeat, whose series has not moved on yet, and
    scheduled before `before` (stored text); soonest first."""
    where = (
        "workspace_id = ? AND status IN ('Scheduled', 'Publishing') AND scheduled_at < ?"
        " AND repeat IS NOT NULL AND series_continued = 0"
    )
    return [
        posts.record(r)
        for r in rows(
            f"SELECT {COLUMNS} FROM posts WHERE {where} ORDER BY scheduled_at, id",
            (workspace_id, before),
        )
    ]


def scheduled_on(workspace_id, channel_id):
    """The ids of the channel's Scheduled posts, soonest first."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM posts WHERE workspace_id = ? AND channel_id = ?"
            " AND status = 'Scheduled' ORDER BY scheduled_at, id",
            (workspace_id, channel_id),
        )
    ]


def records(post_ids):
    """The records of these posts (any workspace's), each with its workspace_id, in that order."""
    return _records_in_order(list(post_ids)) if post_ids else []


# --- the service's own publisher (posts/own_handoffs.py) -------------------------------------

_SERVICE_DUE = (
    "p.status = 'Scheduled' AND p.scheduled_at <= ?"
    f" AND (p.retry_not_before IS NULL OR p.retry_not_before <= ?) AND {_BY_SERVICE}"
)


def any_service_work(now, comments_before):
    """Whether a due post waits for the service's own publisher, one of its
    handoffs ran out, or a first comment due before `comments_before` waits
    (a read, before the write lock)."""
    return (
        value(
            f"SELECT 1 FROM posts p WHERE {_SERVICE_DUE}"
            f" UNION ALL SELECT 1 FROM posts WHERE {SERVICE_EXPIRED}"
            " UNION ALL SELECT 1 FROM posts WHERE comment_due_at <= ? LIMIT 1",
            (now, now, now, comments_before),
        )
        == 1
    )


def take_for_service(now, limit, expires_at, sendable=None):
    """Hand up to `limit` due posts of channels the service publishes itself
    to the service, soonest first, exactly as claim_due hands them to a
    caller (SKIP LOCKED on PostgreSQL, the write lock on SQLite), with the
    service as the handoff's holder. A post LinkedIn asked to wait for
    (retry_not_before) waits. Returns (records, [(workspace_id, id)] held back)."""
    found = rows(
        f"SELECT p.id, p.workspace_id, p.content FROM posts p WHERE {_SERVICE_DUE}"
        " ORDER BY p.scheduled_at, p.id LIMIT ?" + dialect().skip_locked,
        (now, now, limit),
    )
    found, held = _sendable(found, sendable)
    if not found:
        return [], held
    ids = [r["id"] for r in found]
    return _hand_off(ids, [expires_at] * len(ids), now, acknowledged=True, holder="service"), held


def mark_sending(post_id, handoff_id, now, expires_at):
    """The service's handoff is about to send the post itself: marked so, and
    its lease set to outlast the request, only while the handoff is current,
    its lease unexpired and it was never marked before. True if it was: the
    one condition under which the post may be sent."""
    return (
        value(
            "UPDATE posts SET handoff_sending_at = ?, handoff_expires_at = ?, updated_at = ?,"
            " version = version + 1 WHERE id = ? AND handoff_id = ? AND status = 'Publishing'"
            " AND handoff_holder = 'service' AND handoff_sending_at IS NULL"
            " AND handoff_expires_at > ? RETURNING 1",
            (now, expires_at, now, post_id, handoff_id, now),
        )
        == 1
    )


def note_unknown(post_id, handoff_id, why, check_at, now):
    """A sent post whose outcome is unknown: kept Publishing with the reason
    (handoff_error), its lease ending when it is to be checked at LinkedIn."""
    return (
        value(
            "UPDATE posts SET handoff_error = ?, handoff_expires_at = ?, updated_at = ?,"
            " version = version + 1 WHERE id = ? AND handoff_id = ? AND status = 'Publishing'"
            " AND handoff_holder = 'service' AND handoff_sending_at IS NOT NULL RETURNING 1",
            (why, check_at, now, post_id, handoff_id),
        )
        == 1
    )


def service_expired(now, limit):
    """[{id, workspace_id, handoff_id, handoff_sending_at, handoff_error}] of the
    service's handoffs whose lease ran out, oldest first (SKIP LOCKED on
    PostgreSQL: another dispatcher takes others)."""
    return rows(
        "SELECT id, workspace_id, handoff_id, handoff_sending_at, handoff_error FROM posts"
        f" WHERE {SERVICE_EXPIRED} ORDER BY handoff_expires_at, id LIMIT ?" + dialect().skip_locked,
        (now, limit),
    )


def extend_service_lease(post_id, handoff_id, now, expires_at):
    """A service handoff whose lease ran out, taken on to be checked at
    LinkedIn: its lease set anew, only if it still ran out (so that one
    dispatcher checks it). True if this caller took it."""
    return (
        value(
            "UPDATE posts SET handoff_expires_at = ?, updated_at = ?, version = version + 1"
            " WHERE id = ? AND handoff_id = ? AND status = 'Publishing'"
            " AND handoff_holder = 'service' AND handoff_expires_at <= ? RETURNING 1",
            (expires_at, now, post_id, handoff_id, now),
        )
        == 1
    )


def urns_held(urns, post_id):
    """The URNs among `urns` that a post other than `post_id` holds (any
    workspace's: a network's URN names one post wherever it is)."""
    if not urns:
        return set()
    return {
        r["linkedin_post_id"]
        for r in rows(
            "SELECT linkedin_post_id FROM posts WHERE linkedin_post_id IN"
            f" ({', '.join('?' * len(urns))}) AND id <> ?",
            (*urns, post_id),
        )
    }


def mark_comment_sending(post_id, now):
    """The Published post's first comment is about to be sent: marked so,
    only if it is due and was never marked. True if it was: the one
    condition under which it is sent."""
    return (
        value(
            "UPDATE posts SET comment_sending_at = ? WHERE id = ? AND status = 'Published'"
            " AND comment_due_at IS NOT NULL AND comment_sending_at IS NULL RETURNING 1",
            (now, post_id),
        )
        == 1
    )


def comments_due(due_before, sending_before, limit):
    """[{id, workspace_id, comment_sending_at}] of the first comments left
    behind: due before `due_before` and never marked sending, or marked
    sending before `sending_before` with no outcome kept; oldest first."""
    return rows(
        "SELECT id, workspace_id, comment_sending_at FROM posts WHERE comment_due_at <= ?"
        " AND (comment_sending_at IS NULL OR comment_sending_at <= ?)"
        " ORDER BY comment_due_at, id LIMIT ?" + dialect().skip_locked,
        (due_before, sending_before, limit),
    )


def comment_settled(post_id):
    """The post's first comment has its outcome: nothing left to send (no
    version of its own: the record does not show these columns)."""
    execute(
        "UPDATE posts SET comment_due_at = NULL, comment_sending_at = NULL WHERE id = ?",
        (post_id,),
    )
