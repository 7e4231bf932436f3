"""One webhook delivery: the event's body POSTed to an endpoint, signed with
the Standard Webhooks headers (the `standardwebhooks` package) and every
current secret of the endpoint, through the outbound client's guard and
deadline (outbound.py).
"""

from datetime import UTC, datetime

from standardwebhooks import Webhook

from content_publishing.outbound import USER_AGENT


def deliver(sender, url, event_id, body, secrets, extra_headers=None):
    """POST `body` signed with every secret in `secrets`, with
    `extra_headers` (an endpoint's auth_header), through `sender`
    (outbound.Sender); the attempt, as Sender.post returns it."""
    moment = datetime.now(UTC)
    signatures = " ".join(Webhook(s).sign(event_id, moment, body) for s in secrets)
    headers = {
        "webhook-id": event_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signatures,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **(extra_headers or {}),
    }
    return sender.post(url, body, headers, moment)
