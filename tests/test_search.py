"""Search: GET /api-v2-posts?q= finds posts whose content holds every word
as a whole word, in any case, the last word of 3 letters or more also as the
start of a word, combined with the other filters, through an index on both
backends; operators are plain text."""

import pytest

from harness.api import POSTS
from tests.conftest import assert_error


@pytest.fixture
def posts(api):
    texts = [
        "Our spring LAUNCH is live",
        "Launching soon: the spring sale",
        "Café opening — Über cool",
        'Use OR and NOT -carefully, say "quotes"',
        "snake_case and state-of-the-art",
        "Spring cleaning 2026",
        "Join our Webinar: we are hiring",
    ]
    return {
        t: api.post(POSTS, json={"type": "personal", "content": t}).get_json()["id"] for t in texts
    }


def found(api, query, **extra):
    r = api.get(POSTS, query_string={"q": query, **extra})
    assert r.status_code == 200, r.get_json()
    page = r.get_json()
    assert page["total"] == len(page["data"])
    return {p["content"] for p in page["data"]}


SPRING = {
    "Our spring LAUNCH is live",
    "Launching soon: the spring sale",
    "Spring cleaning 2026",
}


def test_whole_words_in_any_case(api, posts):
    assert found(api, "launch is") == {"Our spring LAUNCH is live"}  # not "Launching"
    assert found(api, "LAUNCHING") == {"Launching soon: the spring sale"}
    assert found(api, "spring") == SPRING


def test_the_last_word_also_matches_as_the_start_of_a_word(api, posts):
    assert found(api, "webin") == {"Join our Webinar: we are hiring"}
    assert found(api, "HIR") == {"Join our Webinar: we are hiring"}
    assert found(api, "spr") == SPRING
    assert found(api, "launch") == {"Our spring LAUNCH is live", "Launching soon: the spring sale"}
    # Only the last word: the others stay whole words.
    assert found(api, "webin hiring") == set()
    assert found(api, "webinar hir") == {"Join our Webinar: we are hiring"}
    # Fewer than 3 letters: a whole word only.
    assert found(api, "sp") == set() and found(api, "we") == {"Join our Webinar: we are hiring"}
    # A prefix is still the start of a word, not any part of one.
    assert found(api, "inar") == set() and found(api, "ring") == set()


def test_the_last_word_typed_is_the_prefix_even_when_repeated(api, posts):
    assert found(api, "spr webinar spr") == set()  # "spr" a prefix; "webinar" whole
    assert found(api, "webin our webin") == {"Join our Webinar: we are hiring"}


def test_every_word_must_occur(api, posts):
    assert found(api, "launch spring") == {"Our spring LAUNCH is live"}
    assert found(api, "spring 2026") == {"Spring cleaning 2026"}
    assert found(api, "spring nothing") == set()


def test_operators_and_quotes_are_plain_text(api, posts):
    assert found(api, "OR") == {'Use OR and NOT -carefully, say "quotes"'}
    assert found(api, "NOT -carefully") == {'Use OR and NOT -carefully, say "quotes"'}
    assert found(api, '"quotes" OR launch') == set()  # or, quotes and launch: no post has all
    assert found(api, "spring OR sale") == set()
    # Quotes, stars and operators around a prefix are plain text too.
    for query in ['"webin', 'webin"', "webin*", "-webin", "+webin", "webin:*", "webin'"]:
        assert found(api, query) == {"Join our Webinar: we are hiring"}, query


def test_letters_beyond_ascii_and_word_parts(api, posts):
    assert found(api, "über CAFÉ") == {"Café opening — Über cool"}
    assert found(api, "cafe") == set()  # a whole word, as written
    assert found(api, "caf") == {"Café opening — Über cool"}  # a prefix of it
    assert found(api, "snake") == {"snake_case and state-of-the-art"}
    assert found(api, "state ar") == set()  # "ar": too short for a prefix
    assert found(api, "snake sta") == {"snake_case and state-of-the-art"}
    assert found(api, "state art") == {"snake_case and state-of-the-art"}


def test_combined_with_the_other_filters(api, app, posts):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    post_id = posts["Spring cleaning 2026"]
    api.patch(
        f"{POSTS}-item/{post_id}",
        json={"scheduled_at": "2031-01-01T00:00:00Z", "status": "Scheduled"},
    )
    assert found(api, "spring", status="Scheduled") == {"Spring cleaning 2026"}
    assert found(api, "spring", status="Draft") == {
        "Our spring LAUNCH is live",
        "Launching soon: the spring sale",
    }
    assert found(api, "spring", type="brand") == set()
    page = api.get(POSTS, query_string={"q": "spring", "limit": 2}).get_json()
    assert page["total"] == 3 and len(page["data"]) == 2 and page["next"]


def test_edits_and_deletes_are_searched_as_they_are(api, posts):
    post_id = posts["Our spring LAUNCH is live"]
    api.patch(f"{POSTS}-item/{post_id}", json={"content": "Our autumn release"})
    assert found(api, "launch is") == set() and found(api, "autumn") == {"Our autumn release"}
    assert found(api, "relea") == {"Our autumn release"}
    api.client.delete(f"{POSTS}-item/{post_id}", headers={"X-API-Key": api.key})
    assert found(api, "autumn") == set()


def test_other_users_posts_are_never_found(api, caller, posts):
    bob = caller("bob")
    bob.post(POSTS, json={"type": "personal", "content": "Bob's spring launch"})
    assert found(api, "bob") == set()
    assert found(bob, "spring") == {"Bob's spring launch"}
    assert found(bob, "spr") == {"Bob's spring launch"}  # bob's keys alone, as a prefix too


@pytest.mark.backend_independent
@pytest.mark.parametrize("query", ["", "   ", "!!!", "-- ' \"", "x" * 201, " ".join(["w"] * 21)])
def test_a_query_without_words_or_too_long_is_400(api, query):
    assert (
        "q"
        in assert_error(api.get(POSTS, query_string={"q": query}), 400, "validation_error")[
            "details"
        ]
    )
