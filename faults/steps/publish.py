"""Step 7: the service's own publisher SIGKILLed mid-publish, then restarted.

gunicorn and a dispatcher that publishes to the LinkedIn stand-in itself, on
an SQLite file and then on PostgreSQL (TEST_DATABASE_URL), with a brand channel connected through the sign-in (so
that its posts can be read back at LinkedIn). Two kills:

- after the post was created: the stand-in holds its 201 of the post; the
  dispatcher is SIGKILLed while it waits, so the service never records it.
  After a restart the handoff's lease runs out, it is found marked
  `sending`, and the restarted publisher looks at LinkedIn instead of
  sending it again: exactly one post at the stand-in, and the service's
  post Published, "confirmed after an unknown outcome".
- before the POST: the stand-in holds the PUT of the post's image; the
  dispatcher is SIGKILLed before it marked the handoff sending. After a
  restart the lease runs out, the post is given back untried and
  published: once, with its image.

No token the stand-in issued is in any log.
"""

import io
import time

from PIL import Image

from faults.report import Step, log
from harness import (
    Client,
    Dispatcher,
    Gunicorn,
    create_key,
    free_port,
    init_database,
    postgres,
)
from harness.api import CHANNELS, HISTORY, ITEM, MEDIA, POSTS
from harness.clock import PastMinutes
from harness.linkedin_signin import connect_live, environment, leaked, linkedin_for

LEASE = 5  # FLASK_HANDOFF_LEASE_SECONDS: what a killed dispatcher held comes back soon
TIMEOUT = 2  # FLASK_LINKEDIN_TIMEOUT_SECONDS: a sent post's lease is 2 x this + 5 s
ENV = {
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999",  # due posts in the past
    "FLASK_HANDOFF_LEASE_SECONDS": str(LEASE),
    "FLASK_LINKEDIN_TIMEOUT_SECONDS": str(TIMEOUT),
    "FLASK_LINKEDIN_CHECK_DELAY_SECONDS": "1",
    "FLASK_DISPATCH_POLL_SECONDS": "0.1",
    "FLASK_DISPATCH_GRACE_SECONDS": "1",
}
PAGE = "urn:li:organization:2414183"


def run(args, tmp):
    st = Step("7 publish")
    log("\n[7] the service's own publisher SIGKILLed after LinkedIn created a post, and before")
    log("  on SQLite")
    on_database(st, tmp / "sqlite", lambda env: tmp / "sqlite" / "publish.sqlite")
    problem = postgres.reachable()
    if problem:
        st.check(False, f"PostgreSQL at {postgres.base_url()} is reachable ({problem})")
        return st
    log("  on PostgreSQL")
    with postgres.fresh_database(prefix="faults") as url:
        on_database(st, tmp / "postgresql", lambda env: url)
    return st


def on_database(st, tmp, database_of):
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with linkedin_for(url) as linkedin:
        env = {**ENV, **environment(linkedin, url)}
        database = init_database(database_of(env), env=env)
        key = create_key(database, "publisher", env=env)
        with Gunicorn(
            database, workers=2, env=env, port=port, log=tmp / "publish.log", name="publish"
        ) as server:
            client = Client(server.url, key, timeout=30)
            client.post(
                CHANNELS,
                {"type": "brand", "brand_id": "acme", "name": "Acme", "author_urn": PAGE},
            )
            channel = connect_live(client, linkedin, "acme")
            st.check(
                channel["publisher"] == "linkedin" and channel["author_urn"] == PAGE,
                "the brand channel is connected through the sign-in, published by the service",
            )
            killed_after_create(st, tmp, database, env, client, linkedin)
            killed_before_post(st, tmp, database, env, client, linkedin)
        logs = [p.read_text(errors="replace") for p in tmp.glob("publish*.log")]
        st.check(not leaked(linkedin, *logs), "no token the stand-in issued is in any log")


def dispatcher(tmp, database, env, name):
    return Dispatcher(database, name=name, env=env, log=tmp / f"publish-{name}.log").start(
        timeout=30
    )


# No two posts of a channel share a minute (planning/plan.py): each post of
# the step is due at a past minute of its own (from a moving now, two posts
# 19 s apart could meet).
_DUE = PastMinutes()


def due(client, content, **fields):
    [at] = _DUE.take(1)
    r = client.post(
        POSTS,
        {
            "type": "brand",
            "brand_id": "acme",
            "content": content,
            "scheduled_at": at,
            **fields,
        },
    )
    post = r.json
    r = client.patch(ITEM + post["id"], {"status": "Scheduled"})
    if r.status != 200:
        raise RuntimeError(f"scheduling answered {r.status or r.error}: {r.text[:300]}")
    return r.json


def settled(client, post, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = client.get(ITEM + post["id"]).json
        if found["status"] in ("Published", "Failed"):
            return found
        time.sleep(0.2)
    return client.get(ITEM + post["id"]).json


def killed_after_create(st, tmp, database, env, client, linkedin):
    text = f"Killed after LinkedIn made it {time.time():.0f}"
    hold = linkedin.hold_on(text)
    first = dispatcher(tmp, database, env, "first")
    post = due(client, text)
    if not st.check(hold.holding.wait(20), "the stand-in created the post and holds its 201"):
        first.kill()
        return
    first.kill()  # SIGKILL while LinkedIn's answer is on its way: the service never records it
    killed = time.monotonic()
    hold.release()
    seen = client.get(ITEM + post["id"]).json
    st.check(seen["status"] == "Publishing", f"after the kill the post is {seen['status']}")
    restarted = dispatcher(tmp, database, env, "restarted")
    done = settled(client, post)
    took = time.monotonic() - killed
    restarted.stop()
    made = [r for r in linkedin.posts_with(text) if r.status == 201]
    st.figure(f"settled {took:.1f} s after the kill (lease {2 * TIMEOUT + 5} s, then the check)")
    st.check(
        len(linkedin.posts_with(text)) == 1 and len(made) == 1,
        f"exactly one post at the stand-in ({len(linkedin.posts_with(text))} received)",
    )
    st.check(
        done["status"] == "Published" and made and done["linkedin_post_id"] == made[0].urn,
        f"the service shows it Published as LinkedIn's post ({done['status']})",
    )
    last = client.get(HISTORY + post["id"]).json["data"][-1]
    st.check(
        last["action"] == "published"
        and last["detail"].startswith("confirmed after an unknown outcome"),
        f"history: {last['action']}, {last['detail']!r}",
    )


def killed_before_post(st, tmp, database, env, client, linkedin):
    text = f"Killed before the post {time.time():.0f}"
    image = client.post(MEDIA, _picture(), headers={"Content-Type": "image/png"}).json
    hold = linkedin.hold_upload()
    first = dispatcher(tmp, database, env, "second")
    post = due(client, text, media_urls=[image["url"]])
    if not st.check(hold.holding.wait(20), "the stand-in holds the PUT of the post's image"):
        first.kill()
        return
    first.kill()  # SIGKILL before the handoff was marked sending: the post was never sent
    killed = time.monotonic()
    hold.release()
    restarted = dispatcher(tmp, database, env, "restarted-again")
    done = settled(client, post)
    took = time.monotonic() - killed
    restarted.stop()
    made = linkedin.posts_with(text)
    st.figure(f"published {took:.1f} s after the kill (lease {LEASE} s)")
    st.check(
        len(made) == 1 and made[0].status == 201,
        f"the post reached the stand-in once ({len(made)} received)",
    )
    st.check(done["status"] == "Published", f"the service shows it Published ({done['status']})")
    content = made[0].body.get("content", {}) if made else {}
    st.check(content.get("media", {}).get("id", "").startswith("urn:li:image:"), "with its image")
    actions = [e["action"] for e in client.get(HISTORY + post["id"]).json["data"]]
    st.check(
        actions[-4:] == ["claimed", "given_back", "claimed", "published"],
        f"history: {', '.join(actions[-4:])}",
    )


def _picture():
    out = io.BytesIO()
    Image.new("RGB", (16, 9), "navy").save(out, "PNG")
    return out.getvalue()
