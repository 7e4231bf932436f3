"""Made data for the stats and analytics tests: Published posts that went
out at chosen moments, with the service's clock moved there (in process),
and snapshots of their figures."""

from datetime import UTC, datetime, timedelta

from content_publishing import timestamps
from harness.api import CALLBACK, CHANNELS, IMPORT, STATS


def stamp(moment):
    """The service's UTC text for an aware datetime."""
    return timestamps.to_text(moment)


def move_clock(clock, moment):
    """The service's clock at `moment` (it goes on ticking from there)."""
    clock.advance((moment - timestamps.now()).total_seconds())


def back_to_now(clock):
    clock.offset = timedelta(0)


def channel(api, channel_id="acme", zone="Europe/Berlin", **extra):
    body = {"name": channel_id.title(), "timezone": zone, **extra}
    if channel_id == "personal":
        body["type"] = "personal"
    else:
        body.update(type="brand", brand_id=channel_id)
    r = api.post(CHANNELS, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def publish_at(api, clock, moments, channel_id="personal", content=None):
    """One Published post per aware datetime in `moments` (in the past),
    each published at that moment: imported Scheduled with the clock an
    hour before the first, then each published by the callback with the
    clock at its moment. The clock is left at now. Returns the records in
    the order of `moments`, as published."""
    content = content or (lambda n, moment: f"Post {n} of {moment:%a %H:%M}")
    brand = (
        {"type": "personal"}
        if channel_id == "personal"
        else {"type": "brand", "brand_id": channel_id}
    )
    moments = list(moments)
    made = []
    for start in range(0, len(moments), 1000):
        part = moments[start : start + 1000]
        move_clock(clock, min(part) - timedelta(hours=1))
        rows = [
            {**brand, "content": content(start + n, m), "scheduled_at": m.isoformat()}
            for n, m in enumerate(part)
        ]
        r = api.post(IMPORT, json={"posts": rows})
        assert r.status_code == 201, r.get_json()
        made += r.get_json()["data"]
    published = {}
    for n in sorted(range(len(moments)), key=lambda n: moments[n]):
        move_clock(clock, moments[n])
        r = api.post(
            CALLBACK, json={"post_id": made[n]["id"], "linkedin_post_id": f"urn:li:share:{n + 1}"}
        )
        assert r.status_code == 200, r.get_json()
        published[n] = r.get_json()
    back_to_now(clock)
    return [published[n] for n in range(len(moments))]


def figures(impressions, interactions, **extra):
    """A snapshot's figures with `interactions` spread as reactions,
    comments, reshares and clicks."""
    reactions = interactions // 2
    comments = interactions // 4
    reshares = interactions // 8
    clicks = interactions - reactions - comments - reshares
    return {
        "impressions": impressions,
        "members_reached": impressions * 3 // 4,
        "reactions": reactions,
        "comments": comments,
        "reshares": reshares,
        "clicks": clicks,
        **extra,
    }


def snapshot(post, after=timedelta(days=1), **values):
    """A snapshot of `post` taken `after` its publishing."""
    taken = datetime.fromisoformat(post["published_at"]) + after
    return {"post_id": post["id"], "taken_at": taken.astimezone(UTC).isoformat(), **values}


def send(api, snapshots):
    """POST them in batches of 500; every item must be kept."""
    for start in range(0, len(snapshots), 500):
        r = api.post(STATS, json={"data": snapshots[start : start + 500]})
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["refused"] == 0, r.get_json()
