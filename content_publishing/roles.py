"""What a member's role lets their keys do (docs/api.md, "Roles").

A key's permissions are its scopes intersected with its member's role:
ROLE_SCOPES says which scopes each role may use at all, and a few routes
ask for a least role besides their scope (`require_scope(..., role=...)`:
managing channels, deleting media, the queue and the members). A
contributor's posts are their own drafts: `check_post_write` holds that on
every write of a post, and since a contributor's keys never carry
posts:publish (the scope every path to Scheduled or Publishing asks for:
a PATCH of status, the queue, an import's times, a claim, the callback),
nothing a contributor writes is ever scheduled, so no series of theirs
recurs either.

`Grant` is what a request may do, as a plain value the domain takes in
place of a set of scopes: `scope in grant` is the intersection.
"""

from dataclasses import dataclass

from content_publishing.errors import forbidden, insufficient_scope

ROLES = ("owner", "admin", "editor", "contributor", "viewer")  # most powers first
SCOPES = (  # every scope a key may carry (auth.py), in the order they are shown
    "posts:read",
    "posts:write",
    "posts:publish",
    "articles:read",
    "articles:write",
    "webhooks:manage",
    "members:manage",
)
ALL_SCOPES = frozenset(SCOPES)
ROLE_SCOPES = {
    "owner": ALL_SCOPES,
    "admin": ALL_SCOPES,
    "editor": ALL_SCOPES - {"members:manage"},
    "contributor": frozenset({"posts:read", "posts:write", "articles:read"}),
    "viewer": frozenset({"posts:read", "articles:read"}),
}
# What each role may do, in the words a refusal uses.
DESCRIBED = {  # what each may do, read after "may"
    "owner": "do everything, including inviting members and changing the workspace's settings",
    "admin": "do everything but change owners: invite members, change the workspace's settings,"
    " approve posts",
    "editor": "write, schedule, queue, import and publish posts, approve colleagues' posts or ask"
    " for changes, and set up channels, media and webhooks",
    "contributor": "write drafts, change and submit them for review (an editor approves them),"
    " upload media and set its alt text, save hashtag sets, and comment",
    "viewer": "read posts and comment on them",
}


def rank(role):
    """Higher for more powers: owner 4 ... viewer 0."""
    return len(ROLES) - 1 - ROLES.index(role)


def at_least(role, least):
    return rank(role) >= rank(least)


def refused(role, what):
    """403 forbidden, naming the role and what it may do instead."""
    return forbidden(
        f"A member with the role {role} may not {what}; {role} may {DESCRIBED[role]}.",
        {"role": role},
    )


@dataclass(frozen=True)
class Grant:
    """A request's permissions: its key's scopes, its member and role."""

    scopes: frozenset
    role: str = "owner"
    member_id: int | None = None

    def __contains__(self, scope):
        return scope in self.scopes and scope in ROLE_SCOPES[self.role]

    def __iter__(self):
        return iter(sorted(s for s in self.scopes if s in self))

    def require(self, scope):
        """403: forbidden, naming the role, when the member's role never
        allows `scope`; else insufficient_scope when the key lacks it."""
        if scope not in ROLE_SCOPES[self.role]:
            raise refused(self.role, f"use what {scope} allows")
        if scope not in self.scopes:
            raise insufficient_scope(scope)

    def require_role(self, least, what):
        if not at_least(self.role, least):
            raise refused(self.role, what)


def missing(scopes, scope):
    """The 403 for a request without `scope`: forbidden when its member's
    role does not allow it, else insufficient_scope."""
    if isinstance(scopes, Grant) and scope not in ROLE_SCOPES[scopes.role]:
        return refused(scopes.role, f"use what {scope} allows")
    return insufficient_scope(scope)


# What a contributor may change of their own: a Draft, and one under review
# (a change of it takes it back to Draft: posts/moves.py).
CONTRIBUTOR_WRITES = ("Draft", "In review", "Approved")


def check_post_write(grant, post, what="change this post"):
    """A contributor writes only their own drafts: `post` (None for a new
    one) must be a Draft they made (or theirs under review, which a change
    takes back to Draft)."""
    if not isinstance(grant, Grant) or grant.role != "contributor":
        return
    if post is not None and (post.get("created_by") != grant.member_id):
        raise refused(grant.role, f"{what}: it is another member's post")
    if post is not None and post["status"] not in CONTRIBUTOR_WRITES:
        raise refused(grant.role, f"{what}: it is {post['status']}, not a Draft")


def check_maker(grant, maker, what):
    """What a member made for the workspace to share (a library item's alt
    text, a hashtag set) is changed by its maker or an editor or higher;
    one made before its maker was recorded (`maker` None), by an editor or
    higher only."""
    if not isinstance(grant, Grant) or at_least(grant.role, "editor"):
        return
    if maker is None or maker != grant.member_id:
        raise refused(grant.role, f"{what}: another member made it")


@dataclass(frozen=True)
class Actor:
    """Who makes a request's changes, as the history records them: its key
    (None for a session, which has none) and its member."""

    key_id: int | None
    member_id: int | None


def check_own_scopes(grant, scopes):
    """A member makes keys of their own with at most what `grant` allows
    (their role's scopes; a key's, its own too): 403 forbidden naming the
    role, or insufficient_scope naming the first scope the key lacks."""
    for scope in scopes:
        grant.require(scope)
