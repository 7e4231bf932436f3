"""The analytics query (a range, a channel) and its answer."""

import re
from datetime import date

from marshmallow import Schema, ValidationError, fields

from content_publishing import timestamps
from content_publishing.schemas.common import Text
from content_publishing.schemas.stats import ENGAGEMENT, figure_fields

DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
YEARS = (1970, 9998)  # posts are published after 1970; a day more stays in range
DAY_NAMES = "mon, tue, wed, thu, fri, sat or sun"


class DateOrTimestamp(fields.String):
    """An RFC 3339 date-time, or a date (YYYY-MM-DD), a day in the channel's
    time zone, in the years 1970-9998: loaded as ("instant", stored text) or
    ("date", date)."""

    def __init__(self, description, **kwargs):
        pattern = f"^(?:{DATE_PATTERN[1:-1]}|{timestamps.PATTERN[1:-1]})$"
        super().__init__(metadata={"description": description, "pattern": pattern}, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        found = self._read(text)
        if (
            not YEARS[0]
            <= int(found[1][:4] if found[0] == "instant" else found[1].year)
            <= YEARS[1]
        ):
            raise ValidationError(f"Must be in the years {YEARS[0]} to {YEARS[1]}.")
        return found

    @staticmethod
    def _read(text):
        if re.fullmatch(DATE_PATTERN, text):
            try:
                return "date", date.fromisoformat(text)
            except ValueError:
                raise ValidationError("Not a real date (month or day out of range).") from None
        try:
            return "instant", timestamps.to_text(timestamps.parse(text))
        except ValueError as error:
            raise ValidationError(f"Not a date (YYYY-MM-DD) or a timestamp: {error}.") from error
        except OverflowError as error:
            raise ValidationError("Not a valid timestamp: out of range in UTC.") from error


class AnalyticsQuerySchema(Schema):
    start = DateOrTimestamp(
        "The range's start: published_at >= this (a date: its first moment in the channel's "
        "zone). Default: 90 days before `to`.",
        data_key="from",
    )
    end = DateOrTimestamp(
        "The range's end: published_at < this (a date: that whole day, in the channel's zone). "
        "Default: now. At most 400 days after `from`.",
        data_key="to",
    )
    channel = Text(
        100,
        metadata={
            "description": "One channel: `personal` or a brand_id (its zone is the channel's "
            "own, UTC if it is not set up). Absent: every channel, in the zone they share (UTC "
            "when they differ), and no suggested_slots."
        },
    )


def _counts():
    return {
        "posts": fields.Integer(required=True, metadata={"description": "Posts published in it."}),
        "measured": fields.Integer(
            required=True,
            metadata={"description": "Of them, those whose latest stats have impressions."},
        ),
    }


def _rate():
    return fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "Engagement rate: the interactions of its measured posts over "
            "their impressions; null without any."
        },
    )


TotalsSchema = Schema.from_dict(
    {
        **_counts(),
        **figure_fields(required=True),
        "engagement": _rate(),
        "mean_engagement": fields.Float(
            required=True,
            allow_none=True,
            metadata={
                "description": "The mean of the measured posts' own engagement (each post once): "
                "the channel's mean that suggested slots are compared with."
            },
        ),
    },
    name="AnalyticsTotalsSchema",
)
WeekSchema = Schema.from_dict(
    {
        "week": fields.String(
            required=True,
            metadata={"format": "date", "description": "Its Monday, in the zone."},
        ),
        **_counts(),
        **figure_fields(required=True),
        "engagement": _rate(),
    },
    name="AnalyticsWeekSchema",
)
TopPostSchema = Schema.from_dict(
    {
        "post_id": fields.String(required=True, metadata={"format": "uuid"}),
        "channel": fields.String(required=True),
        "published_at": fields.String(required=True),
        "content": fields.String(required=True),
        "live_url": fields.String(required=True, allow_none=True),
        "taken_at": fields.String(required=True),
        **figure_fields(required=True),
        "engagement": fields.Float(required=True, metadata={"description": ENGAGEMENT}),
    },
    name="AnalyticsTopPostSchema",
)
CellSchema = Schema.from_dict(
    {
        "day": fields.String(required=True, metadata={"description": DAY_NAMES}),
        "hour": fields.Integer(required=True, metadata={"description": "0-23, in the zone."}),
        **_counts(),
        "engagement": fields.Float(
            required=True,
            allow_none=True,
            metadata={
                "description": "The mean of its measured posts' engagement; null without any."
            },
        ),
    },
    name="AnalyticsCellSchema",
)
SuggestedSlotSchema = Schema.from_dict(
    {
        "day": fields.String(required=True, metadata={"description": DAY_NAMES}),
        "time": fields.String(
            required=True,
            metadata={"description": "HH:00: the hour's start, a wall time in the zone."},
        ),
        "engagement": fields.Float(
            required=True, metadata={"description": "Its posts' mean engagement."}
        ),
        "posts": fields.Integer(required=True, metadata={"description": "Its measured posts."}),
        "lift": fields.Float(
            required=True,
            metadata={"description": "How far above the channel's mean: 0.45 is 45 % above."},
        ),
        "in_slots": fields.Boolean(
            required=True, metadata={"description": "The channel has this slot already."}
        ),
    },
    name="SuggestedSlotSchema",
)


ChannelTotalsSchema = Schema.from_dict(
    {
        "channel": fields.String(required=True, metadata={"description": "The channel's id."}),
        **_counts(),
        **figure_fields(required=True),
        "engagement": _rate(),
    },
    name="AnalyticsChannelSchema",
)


class AnalyticsSchema(Schema):
    from_ = fields.String(required=True, data_key="from", attribute="from")
    to = fields.String(required=True)
    channel = fields.String(required=True, allow_none=True)
    timezone = fields.String(
        required=True, metadata={"description": "The zone weeks, days and hours are in."}
    )
    totals = fields.Nested(TotalsSchema, required=True)
    weeks = fields.List(
        fields.Nested(WeekSchema),
        required=True,
        metadata={"description": "Every week of the range, Monday first, oldest first."},
    )
    top = fields.List(
        fields.Nested(TopPostSchema),
        required=True,
        metadata={"description": "The 10 posts with the highest engagement (then impressions)."},
    )
    grid = fields.List(
        fields.Nested(CellSchema),
        required=True,
        metadata={"description": "168 cells: Monday 00:00 first, then by hour and day."},
    )
    suggested_slots = fields.List(
        fields.Nested(SuggestedSlotSchema),
        required=True,
        metadata={
            "description": "Up to 3 weekday/hour pairs whose posts' engagement is clearly above "
            "the channel's mean, each backed by at least 5 measured posts, best first "
            "(docs/analytics.md: at least 10 % above the mean, and above the channel's other "
            "posts by Welch's one-sided t-test at 0.05 divided by the pairs compared). Only "
            "with `channel`."
        },
    )
    channels = fields.List(
        fields.Nested(ChannelTotalsSchema),
        required=True,
        metadata={
            "description": "Each channel's totals over the range, side by side (posts, "
            "figures, engagement rate), by channel id; with `channel`, that one's."
        },
    )


analytics_query_schema = AnalyticsQuerySchema()
analytics_schema = AnalyticsSchema()
