"""Which channel a post goes to (docs/planning.md, "Channels").

A post names its channel by `channel_id`, and carries the `type` and
`brand_id` that channel makes it (personal: no brand_id; brand: its id).
A post of the reference interface names none, and goes where it always
went:

- `brand` to the channel of its brand_id, set up or not;
- `personal` to the personal channel of the member who writes it, else to
  the workspace's first personal channel of a member still in it, else to
  `personal`, the personal channel not set up yet (the first personal
  channel made takes that id, and with it those posts).

A channel_id names a channel of the caller's workspace (404 otherwise, as
any record of another workspace); a type or brand_id given beside it that
disagrees with it is a 400 naming them.
"""

from marshmallow import ValidationError

from content_publishing.errors import not_found, validation_error
from content_publishing.schemas.channels import PERSONAL
from content_publishing.schemas.posts import check_brand
from content_publishing.store import channels as channel_store

PLACED = ("channel_id", "type", "brand_id")  # what placing a post decides


def place(workspace_id, fields, member_id):
    """{channel_id, type, brand_id} of a post of `fields` (a create's, an
    import row's: channel_id, type and brand_id, each optional) written by
    `member_id` (None: the service)."""
    if fields.get("channel_id") is not None:
        return named(workspace_id, fields["channel_id"], fields)
    if fields.get("type") == "brand":
        return of_brand(workspace_id, fields.get("brand_id"))
    return {
        "channel_id": personal_for(workspace_id, member_id),
        "type": "personal",
        "brand_id": None,
    }


def replace(workspace_id, post, changes, member_id):
    """A PATCH's changes with the post's channel placed again when they
    move it: a channel_id, or a type or brand_id other than the post's
    (the reference interface's move); unchanged otherwise."""
    if changes.get("channel_id") is not None:
        if changes["channel_id"] == post["channel_id"] and not changes.keys() & {
            "type",
            "brand_id",
        }:
            return changes
        merged = {k: changes[k] for k in ("type", "brand_id") if k in changes}
        return {**changes, **named(workspace_id, changes["channel_id"], merged)}
    if "channel_id" in changes:  # null: not a channel
        raise validation_error({"channel_id": ["Give a channel's id, or leave it out."]})
    merged = {**post, **{k: changes[k] for k in ("type", "brand_id") if k in changes}}
    if merged["type"] == "personal" and "brand_id" not in changes:
        merged["brand_id"] = None  # a move to personal clears the brand
    if (merged["type"], merged["brand_id"]) == (post["type"], post["brand_id"]):
        return changes
    try:
        check_brand(merged)
    except ValidationError as error:
        raise validation_error(error.normalized_messages()) from None
    return {**changes, **place(workspace_id, {**merged, "channel_id": None}, member_id)}


def named(workspace_id, channel_id, fields):
    """The placement of a post on the channel `channel_id`, which must be
    the workspace's; `fields`' type and brand_id, when given, must agree."""
    channel = channel_store.get_channel(workspace_id, channel_id)
    if channel is None:
        raise not_found("channel")
    brand = channel["type"] == "brand"
    wrong = {}
    if fields.get("type") is not None and fields["type"] != channel["type"]:
        wrong["type"] = [
            f"Channel {channel['id']} is a {channel['type']} channel: give type "
            f"{channel['type']}, or leave type out."
        ]
    if fields.get("brand_id") is not None and fields["brand_id"] != (
        channel["id"] if brand else None
    ):
        wrong["brand_id"] = [
            f"Channel {channel['id']} is the brand {channel['id']}: give that brand_id, or leave "
            "brand_id out."
            if brand
            else f"Channel {channel['id']} is a personal channel, which takes no brand_id."
        ]
    if wrong:
        raise validation_error(wrong)
    return {
        "channel_id": channel["id"],
        "type": channel["type"],
        "brand_id": channel["id"] if brand else None,
    }


def of_brand(workspace_id, brand_id):
    """A brand post goes to the channel of its brand_id, set up or not; a
    brand_id that is a personal channel's id is refused (400)."""
    if not brand_id:
        raise validation_error({"brand_id": ["Required for brand posts."]})
    channel = channel_store.get_channel(workspace_id, brand_id)
    if channel is not None and channel["type"] != "brand":
        raise validation_error(
            {
                "brand_id": [
                    f"{brand_id} is a personal channel's id, not a brand's: give the post "
                    f'channel_id "{brand_id}" (or type "personal") and no brand_id.'
                ]
            }
        )
    return {"channel_id": brand_id, "type": "brand", "brand_id": brand_id}


def personal_for(workspace_id, member_id):
    """The id of the personal channel a personal post of `member_id` goes to."""
    own = channel_store.personal_of(workspace_id, member_id) if member_id is not None else None
    if own is not None:
        return own["id"]
    return channel_store.first_personal(workspace_id) or PERSONAL
