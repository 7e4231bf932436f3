"""Webhook endpoints through the API and the CLI: records, secrets, the SSRF
guard, isolation, and the transactional outbox (a dispatcher only to send a
redelivery)."""

import base64
import contextlib
import re
import time

import pytest

from harness import Answer, Dispatcher, Receiver
from harness.api import CALLBACK, DELIVERIES, HOOK, HOOKS, ITEM, PING, POSTS, REDELIVER
from tests.conftest import assert_error

PUBLIC = "https://93.184.215.14/hooks/cps"  # a public address that needs no DNS
SECRET = re.compile(r"whsec_([A-Za-z0-9+/]{43}=)")


@pytest.fixture(autouse=True)
def settings(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -(10**9)  # schedules in the past are fine here


@pytest.fixture
def private_ok(app):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True


def add(api, url=PUBLIC, events=("post.published",), **fields):
    r = api.post(HOOKS, json={"url": url, "events": list(events), **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def delete(who, path, **headers):
    return who.client.delete(path, headers={"X-API-Key": who.key, **headers})


def publish_a_post(api, n=1):
    post = api.post(
        POSTS, json={"type": "personal", "content": f"p{n}", "scheduled_at": "2020-01-01T00:00:00Z"}
    ).get_json()
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    r = api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": f"urn:li:share:{n}",
            "live_url": "https://www.linkedin.com/feed/update/x",
        },
    )
    assert r.status_code == 200
    return r.get_json()


# --- endpoints ---------------------------------------------------------------------------


def test_create_shows_the_secret_once(api):
    r = api.post(
        HOOKS,
        json={
            "url": PUBLIC,
            "events": ["post.due", "post.failed"],
            "description": "Make.com scenario",
        },
    )
    assert r.status_code == 201
    hook = r.get_json()
    match = SECRET.fullmatch(hook["secret"])
    assert match and len(base64.b64decode(match.group(1))) == 32
    assert hook["events"] == ["post.due", "post.failed"] and hook["enabled"] is True
    assert r.headers["Location"] == HOOK + hook["id"] and r.headers["ETag"] == '"1"'
    read = api.get(HOOK + hook["id"]).get_json()
    assert "secret" not in read and read == {k: v for k, v in hook.items() if k != "secret"}
    assert "secret" not in api.get(HOOKS).get_json()["data"][0]


def test_secrets_are_not_stored_in_plain_text(app, api, stored):
    hook = add(api)
    rotated = api.patch(HOOK + hook["id"], json={"rotate_secret": True}).get_json()
    stored = stored()
    assert hook["id"].encode() in stored
    for secret in (hook["secret"], rotated["secret"]):
        assert secret.encode() not in stored and secret[6:].encode() not in stored
    assert b"whsec_" not in stored


BAD_HOOKS = [
    ({"events": ["post.due"]}, "url"),
    ({"url": "ftp://93.184.215.14/x", "events": ["post.due"]}, "url"),
    ({"url": "https://user:pw@93.184.215.14/x", "events": ["post.due"]}, "url"),
    ({"url": PUBLIC}, "events"),
    ({"url": PUBLIC, "events": []}, "events"),
    ({"url": PUBLIC, "events": ["post.deleted"]}, "events.0"),
    ({"url": PUBLIC, "events": ["post.due", "post.due"]}, "events"),
    ({"url": PUBLIC, "events": "post.due"}, "events"),
    ({"url": PUBLIC, "events": ["ping"]}, "events.0"),
    ({"url": PUBLIC, "events": ["post.due"], "description": "\u200b"}, "description"),
    ({"url": PUBLIC, "events": ["post.due"], "description": "a\x00b"}, "description"),
    ({"url": PUBLIC, "events": ["post.due"], "secret": "whsec_x"}, "secret"),
    ({"url": PUBLIC, "events": ["post.due"], "enabled": False}, "enabled"),
    ({"url": PUBLIC, "events": ["post.due"], "workspace_id": 2}, "workspace_id"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_HOOKS)
def test_bad_endpoints_are_refused(api, body, field):
    err = assert_error(api.post(HOOKS, json=body), 400, "validation_error")
    assert field in err["details"], err
    assert api.get(HOOKS).get_json()["total"] == 0


PRIVATE = [
    "http://127.0.0.1:9000/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://192.168.1.10/hook",
    "http://172.16.0.1/hook",
    "http://[::1]/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::ffff:127.0.0.1]/hook",
    "http://0.0.0.0/hook",
    "http://100.64.0.1/hook",
    "http://[fd00::1]/hook",
    "http://[fe80::1]/hook",
    "http://224.0.0.1/hook",
    "http://2130706433/hook",
    "http://0x7f.1/hook",
    "http://no-such-host.invalid/hook",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("url", PRIVATE)
def test_the_ssrf_guard_refuses_non_public_hosts(api, url):
    err = assert_error(
        api.post(HOOKS, json={"url": url, "events": ["post.due"]}), 400, "validation_error"
    )
    assert "public" in err["details"]["url"][0] or "resolve" in err["details"]["url"][0]
    hook = add(api)
    r = api.patch(HOOK + hook["id"], json={"url": url})
    assert "url" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(HOOK + hook["id"]).get_json()["url"] == PUBLIC


def test_the_guard_can_be_lifted_for_local_development(api, private_ok):
    assert add(api, "http://127.0.0.1:9000/hook")["url"] == "http://127.0.0.1:9000/hook"


def test_one_enabled_post_due_endpoint_per_user(api, caller):
    first = add(api, events=["post.due", "post.published"])
    r = api.post(HOOKS, json={"url": PUBLIC, "events": ["post.failed", "post.due"]})
    assert assert_error(r, 409, "conflict")["details"]["endpoint_id"] == first["id"]
    other = add(api, events=["post.failed"])
    assert_error(api.patch(HOOK + other["id"], json={"events": ["post.due"]}), 409, "conflict")
    assert api.patch(HOOK + first["id"], json={"enabled": False}).status_code == 200
    second = add(api, events=["post.due"])
    assert_error(api.patch(HOOK + first["id"], json={"enabled": True}), 409, "conflict")
    assert add(caller("bob"), events=["post.due"])  # per user
    assert second["enabled"]


def test_patch_changes_fields_and_rotates_the_secret(api):
    hook = add(api, description="first")
    r = api.patch(
        HOOK + hook["id"],
        json={"url": PUBLIC + "/v2", "events": ["post.failed"], "description": None},
        headers={"If-Match": '"1"'},
    )
    changed = r.get_json()
    assert r.status_code == 200 and "secret" not in changed
    assert (changed["url"], changed["events"], changed["description"], changed["version"]) == (
        PUBLIC + "/v2",
        ["post.failed"],
        None,
        2,
    )
    r = api.patch(HOOK + hook["id"], json={"rotate_secret": True})
    rotated = r.get_json()
    assert SECRET.fullmatch(rotated["secret"]) and rotated["secret"] != hook["secret"]
    assert rotated["version"] == 3
    disabled = api.patch(HOOK + hook["id"], json={"enabled": False}).get_json()
    assert disabled["enabled"] is False and disabled["disabled_reason"]
    enabled = api.patch(HOOK + hook["id"], json={"enabled": True}).get_json()
    assert enabled["enabled"] is True and enabled["disabled_reason"] is None
    assert api.patch(HOOK + hook["id"], json={}).get_json()["version"] == enabled["version"]
    stale = api.patch(HOOK + hook["id"], json={"description": "x"}, headers={"If-Match": '"1"'})
    assert_error(stale, 412, "precondition_failed")


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "body, field",
    [
        ({"url": "nope"}, "url"),
        ({"events": []}, "events"),
        ({"enabled": "yes please"}, "enabled"),
        ({"rotate_secret": "x"}, "rotate_secret"),
        ({"secret": "whsec_x"}, "secret"),
    ],
)
def test_bad_patches_change_nothing(api, body, field):
    hook = add(api)
    before = api.get(HOOK + hook["id"]).get_json()
    assert (
        field
        in assert_error(api.patch(HOOK + hook["id"], json=body), 400, "validation_error")["details"]
    )
    assert api.get(HOOK + hook["id"]).get_json() == before


def test_delete_an_endpoint(api):
    hook = add(api)
    assert_error(delete(api, HOOK + hook["id"], **{"If-Match": '"9"'}), 412, "precondition_failed")
    assert delete(api, HOOK + hook["id"]).status_code == 204
    assert_error(api.get(HOOK + hook["id"]), 404, "not_found")
    assert api.get(HOOKS).get_json()["total"] == 0


def test_endpoints_need_the_webhooks_scope(caller):
    poster = caller("alice", scopes=["posts:read", "posts:write", "posts:publish"])
    for method, path in (
        ("get", HOOKS),
        ("post", HOOKS),
        ("get", DELIVERIES),
        ("post", REDELIVER),
        ("post", PING),
        ("get", HOOK + "00000000-0000-4000-8000-000000000000"),
    ):
        r = getattr(poster, method)(path, json={} if method == "post" else None)
        assert (
            assert_error(r, 403, "insufficient_scope")["details"]["required_scope"]
            == "webhooks:manage"
        )


def test_users_never_see_each_others_endpoints_or_deliveries(api, caller):
    bob = caller("bob")
    theirs = add(bob)
    publish_a_post(bob)
    mine = add(api)
    for method, path in (("get", HOOK + theirs["id"]), ("patch", HOOK + theirs["id"])):
        assert_error(
            getattr(api, method)(path, json={} if method == "patch" else None), 404, "not_found"
        )
    assert_error(delete(api, HOOK + theirs["id"]), 404, "not_found")
    assert [h["id"] for h in api.get(HOOKS).get_json()["data"]] == [mine["id"]]
    assert api.get(DELIVERIES).get_json()["total"] == 0
    (delivery,) = bob.get(DELIVERIES).get_json()["data"]
    assert_error(api.post(REDELIVER, json={"delivery_id": delivery["id"]}), 404, "not_found")
    assert_error(api.post(PING, json={"webhook_id": theirs["id"]}), 404, "not_found")
    assert bob.get(DELIVERIES).get_json()["total"] == 1  # no ping was queued for bob
    assert bob.get(HOOK + theirs["id"]).get_json()["enabled"] is True


# --- the outbox ------------------------------------------------------------------------


def test_changes_write_events_for_the_endpoints_that_want_them(api):
    published_hook = add(api, events=["post.published", "article.published"])
    failed_hook = add(api, events=["post.failed"])
    post = publish_a_post(api)
    other = api.post(
        POSTS, json={"type": "personal", "content": "x", "scheduled_at": "2020-01-01T00:00:00Z"}
    ).get_json()
    api.patch(ITEM + other["id"], json={"status": "Scheduled"})
    api.patch(ITEM + other["id"], json={"status": "Failed", "last_error": "token expired"})
    article = api.post("/functions/v1/articles-api", json={"title": "t"}).get_json()
    api.patch(f"/functions/v1/articles-api-item/{article['id']}", json={"status": "Published"})
    log = api.get(DELIVERIES).get_json()
    assert log["total"] == 3
    kinds = {(d["event_type"], d["endpoint_id"], d["post_id"]) for d in log["data"]}
    assert kinds == {
        ("post.published", published_hook["id"], post["id"]),
        ("post.failed", failed_hook["id"], other["id"]),
        ("article.published", published_hook["id"], None),
    }
    assert {d["outcome"] for d in log["data"]} == {"pending"}
    assert all(d["event_id"].startswith("msg_") and d["attempts"] == [] for d in log["data"])
    # A callback retry changes nothing, so it writes no second event.
    api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.linkedin.com/feed/update/x",
        },
    )
    assert api.get(DELIVERIES).get_json()["total"] == 3


@pytest.mark.parametrize(
    "query, expected",
    [
        ("event_type=post.published", 1),
        ("event_type=post.failed", 0),
        ("outcome=pending", 1),
        ("outcome=delivered", 0),
        ("limit=1&offset=1", 1),
    ],
)
def test_delivery_log_filters(api, query, expected):
    hook = add(api)
    post = publish_a_post(api)
    assert api.get(f"{DELIVERIES}?{query}").get_json()["total"] == expected
    assert api.get(f"{DELIVERIES}?endpoint_id={hook['id']}").get_json()["total"] == 1
    assert api.get(f"{DELIVERIES}?post_id={post['id']}").get_json()["total"] == 1
    other = "00000000-0000-4000-8000-000000000000"
    assert api.get(f"{DELIVERIES}?post_id={other}").get_json()["total"] == 0


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "query, param",
    [
        ("outcome=lost", "outcome"),
        ("post_id=1", "post_id"),
        ("event_type=post.pinged", "event_type"),
        ("x=1", "x"),
    ],
)
def test_delivery_log_refuses_bad_filters(api, query, param):
    assert (
        param in assert_error(api.get(f"{DELIVERIES}?{query}"), 400, "validation_error")["details"]
    )


def test_a_change_that_rolls_back_writes_no_event(app, api, monkeypatch, count_rows):
    """The event is written in the change's transaction: if anything fails
    after it, neither the change nor the event is kept."""
    from content_publishing.webhooks import events

    add(api)
    post = api.post(
        POSTS, json={"type": "personal", "content": "x", "scheduled_at": "2020-01-01T00:00:00Z"}
    ).get_json()
    scheduled = api.patch(ITEM + post["id"], json={"status": "Scheduled"}).get_json()
    real = events.post_changed

    def then_fail(*args):
        real(*args)
        raise RuntimeError("the process dies after writing the event")

    monkeypatch.setattr(events, "post_changed", then_fail)
    r = api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.linkedin.com/feed/update/x",
        },
    )
    assert_error(r, 500, "internal_error")
    monkeypatch.setattr(events, "post_changed", real)
    assert api.get(ITEM + post["id"]).get_json() == scheduled
    assert api.get(DELIVERIES).get_json()["total"] == 0
    assert count_rows("webhook_events") == 0


def test_no_endpoint_no_event(app, api, count_rows):
    publish_a_post(api)
    assert count_rows("webhook_events") == 0


def test_deleting_or_disabling_an_endpoint_cancels_its_pending_deliveries(api):
    kept, dropped = add(api), add(api, events=["post.published", "post.failed"])
    publish_a_post(api)
    assert api.patch(HOOK + kept["id"], json={"enabled": False}).status_code == 200
    assert delete(api, HOOK + dropped["id"]).status_code == 204
    log = api.get(DELIVERIES).get_json()["data"]
    assert {d["outcome"] for d in log} == {"cancelled"} and len(log) == 2
    assert {d["last_error"] for d in log} == {
        "the endpoint was disabled",
        "the endpoint was deleted",
    }


@contextlib.contextmanager
def receiving(database, tmp_path, name):
    """A webhook receiver, and a real dispatcher that may reach it on loopback."""
    with (
        Receiver() as receiver,
        Dispatcher(
            database,
            name=name,
            log=tmp_path / "dispatcher.log",
            env={"FLASK_WEBHOOK_ALLOW_PRIVATE": "1"},
        ) as dispatcher,
    ):
        yield receiver, dispatcher


def test_redeliver(api, database, private_ok, tmp_path):
    """A redelivery is a new entry in the log, and a real dispatcher sends it:
    the receiver gets the event a second time, under the same webhook-id."""
    with receiving(database, tmp_path, "redeliver") as (receiver, dispatcher):
        hook = add(api, receiver.url)
        receiver.secrets.append(hook["secret"])
        publish_a_post(api)
        (sent,) = receiver.wait_for(lambda a: a)
        (first,) = wait_for_log(api, lambda log: log[0]["outcome"] == "delivered")
        r = api.post(REDELIVER, json={"delivery_id": first["id"]})
        assert r.status_code == 202
        again = r.get_json()
        assert again["id"] != first["id"] and again["event_id"] == first["event_id"]
        assert again["outcome"] == "pending" and again["endpoint_id"] == hook["id"]
        resent = receiver.wait_for(lambda a: len(a) == 2)[1]
        assert resent.webhook_id == sent.webhook_id == first["event_id"]
        assert resent.body == sent.body and resent.verified_with == [hook["secret"]]
        log = wait_for_log(api, lambda log: {d["outcome"] for d in log} == {"delivered"})
        assert {d["id"] for d in log} == {first["id"], again["id"]}
        assert "Traceback" not in dispatcher.log_text()
    assert_error(
        api.post(REDELIVER, json={"delivery_id": "00000000-0000-4000-8000-000000000000"}),
        404,
        "not_found",
    )
    api.patch(HOOK + hook["id"], json={"enabled": False})
    assert_error(api.post(REDELIVER, json={"delivery_id": first["id"]}), 409, "conflict")


def test_ping_sends_a_signed_ping_whatever_the_endpoint_subscribes_to(
    api, database, private_ok, tmp_path
):
    with receiving(database, tmp_path, "ping") as (receiver, _):
        hook = add(api, receiver.url, events=["article.published"])
        receiver.secrets.append(hook["secret"])
        r = api.post(PING, json={"webhook_id": hook["id"]})
        assert r.status_code == 202
        pending = r.get_json()
        assert pending["outcome"] == "pending" and pending["event_type"] == "ping"
        assert pending["endpoint_id"] == hook["id"]
        (arrival,) = receiver.wait_for(lambda a: a)
        assert arrival.verified_with == [hook["secret"]]
        assert arrival.webhook_id == pending["event_id"]
        assert arrival.type == "ping" and arrival.json["data"] == {"endpoint_id": hook["id"]}
        (done,) = wait_for_log(api, lambda log: log[0]["outcome"] == "delivered")
        assert done["id"] == pending["id"]


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "body, field",
    [({}, "webhook_id"), ({"webhook_id": "not-a-uuid"}, "webhook_id"), ({"id": "x"}, "id")],
)
def test_bad_pings_are_400_and_queue_nothing(api, body, field):
    add(api)
    assert field in assert_error(api.post(PING, json=body), 400, "validation_error")["details"]
    assert api.get(DELIVERIES).get_json()["total"] == 0


def test_ping_of_an_unknown_or_disabled_endpoint_queues_nothing(api):
    unknown = {"webhook_id": "00000000-0000-4000-8000-000000000000"}
    assert_error(api.post(PING, json=unknown), 404, "not_found")
    hook = add(api)
    api.patch(HOOK + hook["id"], json={"enabled": False})
    err = assert_error(api.post(PING, json={"webhook_id": hook["id"]}), 409, "conflict")
    assert err["details"]["endpoint_id"] == hook["id"]
    assert api.get(DELIVERIES).get_json()["total"] == 0


def wait_for_log(api, check, timeout=15.0):
    """The delivery log once check(its entries) holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = api.get(DELIVERIES).get_json()["data"]
        if log and check(log):
            return log
        time.sleep(0.05)
    raise TimeoutError(f"the delivery log is still {log}")


# --- the CLI -----------------------------------------------------------------------------


def test_cli_add_list_test_and_remove(app, runner, key, private_ok):
    with Receiver() as receiver:
        result = runner.invoke(
            args=[
                "webhooks",
                "add",
                "--user",
                "alice",
                "--url",
                receiver.url,
                "--event",
                "post.due",
                "--event",
                "post.failed",
            ]
        )
        assert result.exit_code == 0, result.output
        lines = result.output.strip().splitlines()
        secret = lines[-1]
        assert SECRET.fullmatch(secret)
        endpoint_id = re.search(r"endpoint ([0-9a-f-]{36})", lines[0]).group(1)
        receiver.secrets.append(secret)

        listing = runner.invoke(args=["webhooks", "list"]).output
        assert endpoint_id in listing and "alice" in listing and "post.due,post.failed" in listing
        assert "whsec_" not in listing

        result = runner.invoke(args=["webhooks", "test", endpoint_id])
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"POST {receiver.url}: 200 in ")
        (ping,) = receiver.arrivals
        assert ping.type == "ping" and ping.verified_with == [secret]
        assert ping.json["data"] == {"endpoint_id": endpoint_id}

        receiver.script = lambda arrival: Answer(503, body=b"down for maintenance")
        result = runner.invoke(args=["webhooks", "test", endpoint_id])
        assert result.exit_code == 1 and type(result.exception) is SystemExit
        status, answer, error = result.output.splitlines()
        assert (
            status.startswith(f"POST {receiver.url}: 503 in ") and answer == "down for maintenance"
        )
        assert error == "Error: The ping was not acknowledged: HTTP 503."

    assert runner.invoke(args=["webhooks", "remove", endpoint_id]).exit_code == 0
    assert runner.invoke(args=["webhooks", "list"]).output.strip() == "No webhook endpoints."
    result = runner.invoke(args=["webhooks", "remove", endpoint_id])
    assert result.exit_code == 1 and type(result.exception) is SystemExit
    assert result.output == f"Error: No webhook endpoint {endpoint_id}.\n"  # no traceback


def test_cli_ping_is_signed_with_both_secrets_for_a_day_after_a_rotation(api, runner, private_ok):
    with Receiver() as receiver:
        hook = add(api, receiver.url)
        new = api.patch(HOOK + hook["id"], json={"rotate_secret": True}).get_json()["secret"]
        receiver.secrets += [hook["secret"], new]
        result = runner.invoke(args=["webhooks", "test", hook["id"]])
        assert result.exit_code == 0, result.output
        (ping,) = receiver.arrivals
        assert ping.type == "ping" and ping.verified_with == [hook["secret"], new]


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "args, text",
    [
        (["--user", "nobody", "--url", PUBLIC, "--event", "post.due"], "no user 'nobody'"),
        (["--user", "alice", "--url", "http://10.0.0.1/x", "--event", "post.due"], "public"),
        (["--user", "alice", "--url", "not a url", "--event", "post.due"], "url"),
        (["--user", "alice", "--url", PUBLIC, "--event", "post.gone"], "post.gone"),
    ],
)
def test_cli_add_refuses_bad_input(runner, key, args, text):
    result = runner.invoke(args=["webhooks", "add", *args])
    assert result.exit_code in (1, 2), result.output
    assert text in result.output and "whsec_" not in result.output
    assert result.exception is None or type(result.exception) is SystemExit
