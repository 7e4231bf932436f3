"""The ledger of acknowledged writes, and the checks it must pass afterwards.

A 2xx answer is the service's promise that the write is stored. Every load
that wants to hold the service to that promise (the concurrency tests, the
fault steps) sends its writes through a Ledger, which records each create
and change before it is sent and what the answer was. Afterwards the posts
are read back through the API (harness.api.read_posts) and checked:

  * every acknowledged create exists;
  * a post's version is its starting version plus its acknowledged changes,
    and no two acknowledged changes report the same version (none overwrote
    another);
  * its content is that of the acknowledged change with the highest
    version (or its starting content);
  * a publish callback publishes once: repeats report the same version, the
    post is Published with that callback's URN, and nothing changes it after;
  * with `exact`, the user has no posts the ledger does not know of.

A write that got no answer (the connection broke: a worker was killed) is
"sent": it may or may not have been applied, so it widens what is allowed
(the version may be higher by up to that many, the content may be its
content, an unanswered create may exist) without excusing a lost
acknowledged write. Answered refusals (409, 412, 507, ...) are "refused" and
must not have been applied.

The responses are checked too: no 5xx that the caller did not expect, no
"database is locked" in any body, no status outside each operation's
expected set, and (unless a fault breaks connections) every request answered.

One Ledger may be shared by many threads, each with its own Client.
"""

import collections
import statistics
import threading
from typing import NamedTuple

from harness.api import CALLBACK, ITEM, POSTS

SENT, ACKED, REFUSED = "sent", "acked", "refused"
LOCKED = "database is locked"
NO_ANSWER = "no answer"


class Check(NamedTuple):
    """One verdict: ok, and a sentence saying what was checked (with figures)."""

    ok: bool
    text: str


class Change:
    """One PATCH or publish callback sent to a tracked post."""

    __slots__ = ("kind", "content", "urn", "state", "version")

    def __init__(self, kind, content=None, urn=None):
        self.kind = kind  # "patch" or "publish"
        self.content = content  # what a PATCH sets the content to; None: left alone
        self.urn = urn  # publish: the linkedin_post_id sent
        self.state = SENT
        self.version = None  # the version the acknowledgement reported


class History:
    """What the ledger knows of one post: its acknowledged starting point and
    every change sent to it since, in sending order."""

    __slots__ = ("start_version", "start_content", "changes")

    def __init__(self, version, content):
        self.start_version, self.start_content, self.changes = version, content, []


def percentile(values, q):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100 * len(values)))]


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.posts = {}  # post id -> History
        self.unanswered_creates = 0
        self.statuses = collections.Counter()  # (op, status or NO_ANSWER) -> n
        self.latencies = collections.defaultdict(list)  # op -> [ms]
        self.unexpected = collections.Counter()  # (op, status) -> n, answered but not expected
        self.server_errors = collections.Counter()  # (op, status) -> n, 5xx not expected
        self.locked = 0  # responses whose body says "database is locked"

    # ------------------------------------------------------------ writes

    def track(self, post):
        """Start tracking an existing post (a record as the API returns it)."""
        with self.lock:
            self.posts[post["id"]] = History(post["version"], post["content"])

    def create(self, client, content, *, op="create", expected=(201,), **fields):
        """POST a personal post with `content` (plus `fields`); an acknowledged
        one is tracked. Returns the Response."""
        r = client.post(POSTS, {"type": "personal", "content": content, **fields})
        self.record(op, r, expected)
        if r.status == 201:
            self.track(r.json)
        elif r.status is None:
            with self.lock:
                self.unanswered_creates += 1
        return r

    def patch(self, client, post_id, fields, *, headers=None, op="patch", expected=(200,)):
        """PATCH a tracked post. A 409 is expected as well once a publish
        callback was sent for the post (a Published post is final)."""
        change = self._sent(post_id, Change("patch", content=fields.get("content")))
        r = client.patch(ITEM + post_id, fields, headers=headers)
        if r.status == 409 and self._publish_sent(post_id):
            expected = (*expected, 409)
        self._answered(change, r)
        self.record(op, r, expected)
        return r

    def publish(self, client, post_id, urn, live_url, *, op="callback", expected=(200,)):
        """The publish callback for a tracked post; repeats with the same URN
        and URL must answer 200 with the version of the first."""
        change = self._sent(post_id, Change("publish", urn=urn))
        r = client.post(
            CALLBACK, {"post_id": post_id, "linkedin_post_id": urn, "live_url": live_url}
        )
        self._answered(change, r)
        self.record(op, r, expected)
        return r

    def read(self, client, path, *, op="read", expected=(200,)):
        """A GET whose answer is only counted (status, latency, body)."""
        r = client.get(path)
        self.record(op, r, expected)
        return r

    def record(self, op, r, expected):
        """Count one response of operation `op`; `expected`: its allowed statuses."""
        status = r.status if r.status is not None else NO_ANSWER
        with self.lock:
            self.statuses[(op, status)] += 1
            self.latencies[op].append(r.ms)
            if r.status is not None and r.status not in expected:
                self.unexpected[(op, r.status)] += 1
                if r.status >= 500:
                    self.server_errors[(op, r.status)] += 1
            if LOCKED in r.text:
                self.locked += 1

    def _sent(self, post_id, change):
        with self.lock:
            self.posts[post_id].changes.append(change)
        return change

    def _answered(self, change, r):
        with self.lock:
            if r.ok:
                change.state, change.version = ACKED, r.json["version"]
            elif r.status is not None:
                change.state = REFUSED

    def _publish_sent(self, post_id):
        with self.lock:
            return any(c.kind == "publish" for c in self.posts[post_id].changes)

    # ------------------------------------------------------------ figures

    def acknowledged(self, kind=None):
        """Number of acknowledged changes (of `kind`: "patch" or "publish")."""
        with self.lock:
            return sum(
                1
                for h in self.posts.values()
                for c in h.changes
                if c.state == ACKED and (kind is None or c.kind == kind)
            )

    def acknowledged_state(self):
        """{post id: (version, content)}: what a copy of the database taken
        from now on must hold of each post whose create was acknowledged. The
        version is its highest acknowledged one (it may be higher, after
        writes still in flight); the content is what a post at exactly that
        version has, or None when the last acknowledged write was a publish
        callback (which leaves the content alone)."""
        state = {}
        with self.lock:
            for pid, h in self.posts.items():
                acked = _acked(h)
                top = max(acked, key=lambda c: c.version) if acked else None
                if top is None:
                    state[pid] = (h.start_version, h.start_content)
                elif top.kind == "patch" and top.content is not None:
                    state[pid] = (top.version, top.content)
                else:
                    state[pid] = (top.version, None)
        return state

    def requests(self):
        return sum(self.statuses.values())

    def no_answer(self):
        return sum(n for (_, s), n in self.statuses.items() if s == NO_ANSWER)

    def figures(self):
        """Lines for a report: per operation, its statuses and latencies."""
        by_op = collections.defaultdict(dict)
        for (op, status), n in sorted(
            self.statuses.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))
        ):
            by_op[op][status] = n
        lines = []
        for op, counts in sorted(by_op.items()):
            lat = self.latencies[op]
            lines.append(
                f"{op:<16} "
                + ", ".join(f"{s}: {n:,}" for s, n in counts.items())
                + f"   p50 {statistics.median(lat):.0f} ms, p99 {percentile(lat, 99):.0f} ms"
            )
        published = sum(
            1
            for h in self.posts.values()
            if any(c.kind == "publish" and c.state == ACKED for c in h.changes)
        )
        lines.append(
            f"ledger: {len(self.posts):,} posts tracked, {self.acknowledged():,} acknowledged changes "
            f"({published:,} posts published), {self.unanswered_creates} creates unanswered"
        )
        return lines

    # ------------------------------------------------------------ checks

    def check_posts(self, posts, exact=True):
        """Checks of the stored posts (`posts`: {id: record}, read through the
        API) against the ledger."""
        missing, bad_version, overwritten, bad_content, bad_publish = [], [], [], [], []
        with self.lock:
            for pid, h in self.posts.items():
                post = posts.get(pid)
                if post is None:
                    missing.append(pid)
                    continue
                low, high = _expected_versions(h)
                if not low <= post["version"] <= high:
                    bad_version.append((pid, post["version"], (low, high)))
                problem = _overlap(h, post)
                if problem:
                    overwritten.append((pid, problem))
                allowed = _allowed_contents(h)
                if post["content"] not in allowed:
                    bad_content.append((pid, post["content"][:40]))
                problem = _publish_problem(h, post)
                if problem:
                    bad_publish.append((pid, problem))
            extra = [pid for pid in posts if pid not in self.posts]
            unanswered = sum(1 for h in self.posts.values() for c in h.changes if c.state == SENT)
            slack = self.unanswered_creates
        checks = [
            Check(
                not missing,
                f"every acknowledged create exists ({len(missing)} of {len(self.posts):,} missing{_eg(missing)})",
            ),
            Check(
                not bad_version,
                "every post's version = its starting version + its acknowledged changes"
                + (f" (+ up to its {unanswered} unanswered ones)" if unanswered else "")
                + f" ({len(bad_version)} differ{_eg(bad_version)})",
            ),
            Check(
                not overwritten,
                f"no two acknowledged changes of a post share a version ({len(overwritten)} posts{_eg(overwritten)})",
            ),
            Check(
                not bad_content,
                f"every post's content is its last acknowledged one ({len(bad_content)} differ{_eg(bad_content)})",
            ),
            Check(
                not bad_publish,
                f"callbacks publish once: one version, Published with its URN, final ({len(bad_publish)} differ{_eg(bad_publish)})",
            ),
        ]
        if exact:
            checks.append(
                Check(
                    len(extra) <= slack,
                    f"no post the ledger does not know of ({len(extra)} unknown; {slack} creates went unanswered)",
                )
            )
        return checks

    def check_responses(self, connection_errors=False):
        """Checks of the answers. `connection_errors`: a fault kills
        connections, so requests without an answer are allowed."""
        fivexx = sum(self.server_errors.values())
        wrong = {k: n for k, n in self.unexpected.items() if k not in self.server_errors}
        checks = [
            Check(
                fivexx == 0, f"zero 5xx responses ({fivexx}{_eg(list(self.server_errors.items()))})"
            ),
            Check(self.locked == 0, f'zero "{LOCKED}" in response bodies ({self.locked})'),
            Check(
                not wrong,
                "every answer had an expected status"
                + (
                    f" ({sum(wrong.values())} did not: {dict(collections.Counter(wrong).most_common(5))})"
                    if wrong
                    else ""
                ),
            ),
        ]
        if not connection_errors:
            lost = self.no_answer()
            checks.append(
                Check(lost == 0, f"every request was answered ({lost} connection errors)")
            )
        return checks


def _eg(items):
    return f", e.g. {items[0]}" if items else ""


def _acked(h):
    return [c for c in h.changes if c.state == ACKED]


def _expected_versions(h):
    """(lowest, highest) version the post may have."""
    acked = _acked(h)
    applied = sum(1 for c in acked if c.kind == "patch") + len(
        {c.version for c in acked if c.kind == "publish"}
    )
    unanswered = sum(1 for c in h.changes if c.state == SENT)
    return h.start_version + applied, h.start_version + applied + unanswered


def _overlap(h, post):
    """None, or what is wrong with the versions the acknowledgements reported:
    two share one (a change overwrote another), or one is beyond the post's."""
    version = post["version"]
    acked = _acked(h)
    patches = [c.version for c in acked if c.kind == "patch"]
    publishes = {c.version for c in acked if c.kind == "publish"}
    if len(set(patches)) != len(patches):
        return f"PATCH versions repeat: {sorted(patches)}"
    if publishes & set(patches):
        return f"a PATCH and the publish share version {sorted(publishes & set(patches))}"
    outside = [v for v in (*patches, *publishes) if not h.start_version < v <= version]
    if outside:
        return f"acknowledged versions {outside} outside {h.start_version + 1}..{version}"
    return None


def _allowed_contents(h):
    acked = [c for c in _acked(h) if c.kind == "patch" and c.content is not None]
    last = max(acked, key=lambda c: c.version).content if acked else h.start_content
    return {last} | {c.content for c in h.changes if c.state == SENT and c.content is not None}


def _publish_problem(h, post):
    acked = [c for c in _acked(h) if c.kind == "publish"]
    if not acked:
        if post["status"] == "Published" and not any(
            c.kind == "publish" and c.state == SENT for c in h.changes
        ):
            return "Published without a callback"
        return None
    versions, urns = {c.version for c in acked}, {c.urn for c in acked}
    if len(versions) != 1:
        return f"callbacks answered versions {sorted(versions)}"
    if len(urns) != 1:
        return f"acknowledged with several URNs {sorted(urns)}"
    if post["status"] != "Published" or post["linkedin_post_id"] != next(iter(urns)):
        return f"{post['status']} with {post['linkedin_post_id']}, acknowledged {next(iter(urns))}"
    if post["version"] != next(iter(versions)):
        return f"version {post['version']} after the callback answered {next(iter(versions))}"
    return None
