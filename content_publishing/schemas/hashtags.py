"""Saved hashtag sets: record, create and update bodies, the list query.

A set is a name (1-50 characters, unique among the owner's sets) and 1 to
30 hashtags, each `#` and a word as LinkedIn reads a hashtag
(linkedin.py): a letter or digit, then letters, digits and `_`.
"""

import re

from marshmallow import Schema, ValidationError, fields, validate

from content_publishing.schemas.common import PageQuerySchema, PageSchema, Text, Timestamp

MAX_NAME = 50
MAX_HASHTAGS = 30
MAX_HASHTAG = 100
HASHTAG = re.compile(r"#[^\W_]\w*")


def check_hashtag(tag):
    if len(tag) > MAX_HASHTAG:
        raise ValidationError(f"Longer than {MAX_HASHTAG} characters.")
    if not HASHTAG.fullmatch(tag):
        raise ValidationError(
            f"{tag[:60]!r} is not a hashtag: '#' and a word of letters, digits and '_' "
            "that starts with a letter or digit, such as #B2B."
        )


def distinct_hashtags(tags):
    """LinkedIn reads hashtags in any case: #B2B and #b2b are one."""
    seen = set()
    for tag in tags:
        if tag.casefold() in seen:
            raise ValidationError(f"{tag} is given twice.")
        seen.add(tag.casefold())


def name_field(**kwargs):
    return Text(
        MAX_NAME,
        metadata={"description": "Unique among the caller's sets.", "example": "SaaS launch"},
        **kwargs,
    )


def hashtags_field(**kwargs):
    return fields.List(
        fields.String(validate=check_hashtag, metadata={"example": "#B2B"}),
        validate=[validate.Length(min=1, max=MAX_HASHTAGS), distinct_hashtags],
        metadata={"description": f"1 to {MAX_HASHTAGS} hashtags, in the order inserted."},
        **kwargs,
    )


class HashtagSetSchema(Schema):
    """The set's record; name and hashtags are also the create body."""

    class Meta:
        description = "A named set of hashtags the composer inserts in one click."

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    name = name_field(required=True)
    hashtags = hashtags_field(required=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)


class HashtagSetUpdateSchema(Schema):
    """PATCH body: every field optional."""

    name = name_field()
    hashtags = hashtags_field()


class HashtagSetListQuerySchema(PageQuerySchema):
    """limit/offset; sets are listed oldest first."""


class HashtagSetPageSchema(PageSchema):
    data = fields.List(fields.Nested(HashtagSetSchema), required=True)


hashtag_set_schema = HashtagSetSchema()
hashtag_set_update_schema = HashtagSetUpdateSchema()
hashtag_set_list_query_schema = HashtagSetListQuerySchema()
hashtag_sets_page_schema = HashtagSetPageSchema()
