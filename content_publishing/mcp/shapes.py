"""The tools' outputs, as typed models: what the output schemas show.

Each record is the API's own, field for field (tests/test_mcp.py checks
the declared fields of posts, channels, comments and media against the
API's OpenAPI document); the fields a
model most needs are declared with their types, and the rest of what the
API answers is kept as it is (`extra="allow"`), so that a field the API
adds reaches the model without a change here. `channel` is added to posts:
the value every tool's `channel` parameter takes.
"""

from pydantic import BaseModel, ConfigDict, Field

from content_publishing.mcp.channels import ABOUT as CHANNEL


class Record(BaseModel):
    model_config = ConfigDict(extra="allow")


class Member(Record):
    id: int
    name: str


class Post(Record):
    id: str = Field(description="The post's id (a UUID): what the other tools' `id` takes.")
    channel: str = Field(description=CHANNEL)
    channel_id: str = Field(description="The same: the API's name of the post's channel.")
    type: str = Field(description="personal or brand")
    brand_id: str | None
    content: str
    status: str = Field(
        description="Draft, In review, Approved, Scheduled, Publishing, Published or Failed"
    )
    scheduled_at: str | None = Field(description="When it goes out: RFC 3339, UTC.")
    first_comment: str | None
    media_urls: list[str] = Field(
        description="The media's URLs: a library medium's at the service (its id in the name)."
    )
    media_alt: list[str | None]
    document_title: str | None
    last_error: str | None = Field(description="Why it failed, for a Failed post.")
    live_url: str | None
    author: Member | None
    approved_by: Member | None
    version: int = Field(description="Grows by one on every change; update_post's `version`.")
    created_at: str
    updated_at: str


class Posts(Record):
    posts: list[Post]
    total: int = Field(description="How many posts match, over every page.")
    more: bool = Field(description="True when there are more than shown: raise `offset`.")


class Slot(Record):
    day: str = Field(description="mon .. sun")
    time: str = Field(description="HH:MM, a wall time in the channel's zone")


class Channel(Record):
    id: str = Field(description=CHANNEL)
    type: str
    kind: str = Field(description="personal (a member's profile) or brand (a page)")
    name: str
    member: Member | None = Field(description="Whose LinkedIn profile it is (personal).")
    timezone: str
    slots: list[Slot] = Field(description="The weekly posting times the queue fills.")
    min_gap_minutes: int
    daily_cap: int | None
    publisher: str


class Channels(Record):
    channels: list[Channel]


class FreeSlot(Record):
    at: str = Field(description="The instant, RFC 3339 UTC: schedule_post's `at`.")
    local: str = Field(description="The same instant in the channel's zone, with its offset.")


class FreeSlots(Record):
    channel: str
    free: list[FreeSlot] = Field(description="Slots with no post planned, soonest first.")
    taken: int = Field(description="Slots of the period that already have a post.")


class PreviewWarning(Record):
    code: str
    message: str
    field: str | None = Field(description="The post's field it is about; null: its channel.")


class Preview(Record):
    characters: int = Field(
        description="The text's length as LinkedIn counts it (UTF-16 code units)."
    )
    warnings: list[PreviewWarning] = Field(
        description="What LinkedIn would do differently; [] if none."
    )
    commentary: str | None = Field(description="The text as it goes out to LinkedIn, escaped.")
    links: list[dict] = Field(description="Each link of the text and first comment, as sent.")


class Comment(Record):
    id: int
    post_id: str
    member: Member | None
    body: str
    mentions: list[int]
    created_at: str


class SuggestedSlot(Record):
    day: str
    time: str
    engagement: float
    posts: int
    lift: float
    in_slots: bool = Field(description="Already one of the channel's posting slots.")


class Analytics(Record):
    channel: str | None
    timezone: str
    totals: dict
    weeks: list[dict]
    top: list[dict]
    grid: list[dict]
    suggested_slots: list[SuggestedSlot]
    channels: list[dict] = Field(description="Each channel's totals, side by side.")


class SuggestedSlots(Record):
    channel: str
    timezone: str
    suggested_slots: list[SuggestedSlot] = Field(
        description="Up to 3 posting times that did clearly better than the channel's mean."
    )


class Media(Record):
    id: str
    ref: str = Field(description="media:<id>: what create_draft's media_ids takes.")
    url: str
    content_type: str
    alt_text: str | None
    version: int
