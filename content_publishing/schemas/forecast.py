"""The coming occurrences of recurring posts over a range of time
(GET /api-v2-posts-occurrences, planning/forecast.py)."""

from datetime import datetime, timedelta

from marshmallow import Schema, ValidationError, fields, validates_schema

from content_publishing.schemas.common import Timestamp

MAX_RANGE_DAYS = 92  # a quarter: a month view spans at most six weeks


class OccurrencesQuerySchema(Schema):
    start = Timestamp(
        required=True,
        data_key="from",
        metadata={"description": "The range's start: scheduled_at >= this."},
    )
    end = Timestamp(
        required=True,
        data_key="to",
        metadata={
            "description": f"The range's end: scheduled_at < this; at most {MAX_RANGE_DAYS} days after from."
        },
    )

    @validates_schema
    def a_short_forward_range(self, data, **kwargs):
        if "start" not in data or "end" not in data:
            return
        start, end = (datetime.fromisoformat(data[k]) for k in ("start", "end"))
        if end <= start:
            raise ValidationError("Must be after from.", "to")
        if end - start > timedelta(days=MAX_RANGE_DAYS):
            raise ValidationError(f"Must be at most {MAX_RANGE_DAYS} days after from.", "to")


class OccurrenceSchema(Schema):
    series_id = fields.String(required=True, metadata={"format": "uuid"})
    post_id = fields.String(
        required=True,
        metadata={
            "format": "uuid",
            "description": "The series' current occurrence, which this repeat will copy: its "
            "content, media, channel and repeat as they are when it finishes.",
        },
    )
    occurrence = fields.Integer(
        required=True, metadata={"description": "The place in the series this repeat would take."}
    )
    scheduled_at = Timestamp(required=True)
    channel_id = fields.String(required=True, metadata={"description": "Its channel's id."})
    type = fields.String(required=True)
    brand_id = fields.String(required=True, allow_none=True)
    content = fields.String(required=True)
    media_urls = fields.List(fields.String(), required=True)
    repeat = fields.String(required=True)
    stops = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Null; or why the series would stop at this repeat (one of the "
            "channel's guards, with the posts planned now), and none follow it."
        },
    )


class OccurrencesSchema(Schema):
    data = fields.List(
        fields.Nested(OccurrenceSchema), required=True, metadata={"description": "Soonest first."}
    )
    more = fields.Boolean(
        required=True,
        metadata={"description": "true: the range holds more than the 1,000 listed; narrow it."},
    )


occurrences_query_schema = OccurrencesQuerySchema()
occurrences_schema = OccurrencesSchema()
