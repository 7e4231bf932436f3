"""A refusal as the model sees it: the API's error envelope, as a tool error.

The API's code and message come back as they are, so that the model can
correct itself (a `validation_error`'s `details` names each field at fault);
`hint` adds what to do next in the words of this server's tools, where the
API's message names its own routes.
"""

import json

from mcp.types import CallToolResult, TextContent

HINTS = {
    "approval_required": "Call submit_for_review with the post's id: a person (an editor or "
    "above) approves it, and then schedule_post or add_to_queue schedules it.",
    "forbidden": "The key's role does not allow this: leave it to a person in the workspace "
    "(a contributor's key drafts, previews, comments and submits for review).",
    "insufficient_scope": "The key lacks the scope in details.required_scope: ask for a key "
    "that has it, or leave this step to a person.",
    "precondition_failed": "The post changed since you read it: call get_post again, check "
    "what changed, and retry with its new version.",
    "not_found": "No such record in this workspace: check the id with list_posts or list_channels.",
    "validation_error": "Fix the fields named in details and call the tool again.",
    "schedule_conflict": "That time breaks the channel's guards (details.rule): pick another "
    "with find_free_slots, or use add_to_queue.",
    "no_free_slot": "The channel has no free slot (or is not set up): use schedule_post with "
    "a time of your own, or ask a person to add posting slots to the channel.",
    "conflict": "The record's present state does not allow this (its status, or a setting of "
    "the workspace): the message says which; get_post shows the post as it is.",
    "unauthorized": "The API key is missing, unknown, revoked or expired: the person who set "
    "up this server needs to give it a valid key.",
    "rate_limited": "Too many requests: wait a few seconds before the next call.",
    "busy": "The service was busy: call the tool again.",
}


class ToolFailure(Exception):
    """An error the model gets back as a tool error: the API's envelope, or
    one of this server's own in the same shape."""

    def __init__(self, code, message, details=None, status=None):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message
        self.details = details or {}
        self.status = status

    def envelope(self):
        error = {"code": self.code, "message": self.message, "details": self.details}
        if self.status is not None:
            error["status"] = self.status
        if self.code in HINTS:
            error["hint"] = HINTS[self.code]
        return {"error": error}

    def result(self):
        envelope = self.envelope()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))],
            structuredContent=envelope,
            isError=True,
        )


def invalid(details):
    """A validation_error naming each field, worded as the API words one:
    `field: first message` for up to four fields."""
    named = [f"{field}: {messages[0]}" for field, messages in details.items()]
    message = "; ".join(named[:4])
    if len(named) > 4:
        message += f" (and {len(named) - 4} more fields)"
    return ToolFailure("validation_error", message, details)


def from_arguments(error):
    """A pydantic ValidationError of a tool's arguments (a wrong type, a
    missing one) as a validation_error naming each argument."""
    details = {}
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "arguments"
        details.setdefault(field, []).append(problem["msg"])
    return invalid(details)
