"""Escaping that cannot be got round: where a URL starts and ends.

A URL is the one part of a post's text that escaping leaves alone, so every
character the URL rule takes wrongly reaches LinkedIn unescaped, and LinkedIn
publishes the post cut off there. ADVERSARIAL holds texts made to get past
the rule, each with the commentary LinkedIn must receive, spelled out; every
case is checked three ways: the escaper itself, the preview endpoint (what
an automation is handed), and the LinkedIn stand-in of `make test-n8n`
(harness/linkedin_standin.py), whose check is written apart from the
escaper. URL_EXTENTS pins down the URL each rule leaves whole, in the
escaper and in the stand-in alike.
"""

import re

import pytest

from content_publishing.linkedin import escape, urls
from harness import ROOT
from harness.api import API, POSTS
from harness.linkedin_standin import unescaped_reserved, url_length

PREVIEW = f"{API}/api-v2-posts-preview"
ZWSP, ZWJ, RLO, LRI, BOM = "\u200b", "\u200d", "\u202e", "\u2066", "\ufeff"

ADVERSARIAL = [
    # (content, commentary)
    # a ")" closes the URL's own "(" only: the sentence's parentheses are escaped
    ("Read more (see https://example.com/docs)", "Read more \\(see https://example.com/docs\\)"),
    ("(https://example.com/a_b)", "\\(https://example.com/a_b\\)"),
    ("https://example.com/a)b", "https://example.com/a\\)b"),
    ("https://example.com/((((", "https://example.com/\\(\\(\\(\\("),
    ("https://example.com/a(b", "https://example.com/a\\(b"),
    ("https://example.com/a(b)c(d", "https://example.com/a(b)c\\(d"),
    # Wikipedia-style parentheses in the URL stay, also inside a sentence's
    ("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    (
        "(see https://en.wikipedia.org/wiki/Foo_(bar))",
        "\\(see https://en.wikipedia.org/wiki/Foo_(bar)\\)",
    ),
    # a URL starts only at the start or after a non-word character
    ("xhttps://((((", "xhttps://\\(\\(\\(\\("),
    ("_https://x.example/a_b", "\\_https://x.example/a\\_b"),
    ("éhttps://x.example/a_b", "éhttps://x.example/a\\_b"),
    ("2https://x.example/(a)", "2https://x.example/\\(a\\)"),
    # ... and needs a host that starts with a letter or digit
    ("https://((((", "https://\\(\\(\\(\\("),
    ("https://_x_/", "https://\\_x\\_/"),
    ("https:// (x)", "https:// \\(x\\)"),
    # no mention smuggled in behind a scheme, or glued to a word
    ("http://@[Evil](urn:li:person:123)", "http://\\@\\[Evil\\]\\(urn:li:person:123\\)"),
    ("x@[Evil](urn:li:person:123)", "x\\@\\[Evil\\]\\(urn:li:person:123\\)"),
    (
        "https://x.example/@[Evil](urn:li:person:123)",
        "https://x.example/@\\[Evil\\]\\(urn:li:person:123\\)",
    ),
    # characters outside RFC 3986, and [ ], end it
    ("https://x.com/a|b{c}<d>*e*~f~", "https://x.com/a\\|b\\{c\\}\\<d\\>\\*e\\*\\~f\\~"),
    ("https://x.example/a\\(b)", "https://x.example/a\\\\\\(b\\)"),
    ("https://x.example/[a](b)", "https://x.example/\\[a\\]\\(b\\)"),
    ('https://x.example/a"(b)', 'https://x.example/a"\\(b\\)'),
    ("https://x.example/a^(b)`(c)", "https://x.example/a^\\(b\\)`\\(c\\)"),
    # so do white space and invisible format characters (Unicode Cf)
    (f"https://x.example/a{ZWSP}(b)", f"https://x.example/a{ZWSP}\\(b\\)"),
    (f"https://x.example/a{ZWJ}_b_", f"https://x.example/a{ZWJ}\\_b\\_"),
    (f"https://x.example/a{RLO}(b)", f"https://x.example/a{RLO}\\(b\\)"),
    (f"https://x.example/a{LRI}#b", f"https://x.example/a{LRI}\\#b"),
    (f"https://x.example/a{BOM}*b*", f"https://x.example/a{BOM}\\*b\\*"),
    ("https://x.example/a\u00a0(b)", "https://x.example/a\u00a0\\(b\\)"),
    ("https://x.example/a\u2028(b)", "https://x.example/a\u2028\\(b\\)"),
    ("https://x.example/a\t~b~", "https://x.example/a\t\\~b\\~"),
    # ... and emoji and every other non-ASCII character: an IDN host keeps
    # its ASCII start only (its xn-- form stays whole)
    ("https://x.example/🚀(launch)", "https://x.example/🚀\\(launch\\)"),
    ("https://bücher.example/a_(b)", "https://bücher.example/a\\_\\(b\\)"),
    ("https://xn--bcher-kva.example/a_(b)", "https://xn--bcher-kva.example/a_(b)"),
    ("https://x.example/straße_(1)", "https://x.example/straße\\_\\(1\\)"),
    ("https://x.example/a%28b%29_c", "https://x.example/a%28b%29_c"),
    # trailing punctuation and quotes are the sentence's
    ("See https://x.example/a_b.", "See https://x.example/a_b."),
    ("(see https://x.example/a_b).", "\\(see https://x.example/a_b\\)."),
    ("'https://x.example/a_(b)'!", "'https://x.example/a_(b)'!"),
    ('"https://x.example/a_b", then *this*', '"https://x.example/a_b", then \\*this\\*'),
    # hyphenated hosts, ports, user info, queries and fragments stay whole
    ("https://my-host.example-site.co.uk:8443/a_b", "https://my-host.example-site.co.uk:8443/a_b"),
    ("HTTP://X.EXAMPLE/A_B?q=(1)*2&r=~3#top_", "HTTP://X.EXAMPLE/A_B?q=(1)*2&r=~3#top_"),
    ("https://user@x.example/~me", "https://user@x.example/~me"),
    (
        "https://x.example/a_b)https://y.example/c_d",
        "https://x.example/a_b\\)https://y.example/c_d",
    ),
    # hashtags and mentions around URLs keep their own rules
    ("#launch https://x.example/a_b #2026", "#launch https://x.example/a_b #2026"),
    ("(#launch)", "\\(\\#launch\\)"),
    (
        "(@[Ann_B](urn:li:person:a1)) https://x.example/(a)",
        "\\(@[Ann\\_B](urn:li:person:a1)\\) https://x.example/(a)",
    ),
    ("「@[Ann](urn:li:person:a1)」", "「@[Ann](urn:li:person:a1)」"),
    # and escaping never collapses: emoji, and text like an escape already
    ("🚀 *launch* 🚀", "🚀 \\*launch\\* 🚀"),
    ("\\https://x.example/a_b", "\\\\https://x.example/a_b"),
]


@pytest.mark.parametrize("content, commentary", ADVERSARIAL)
def test_the_escaper(content, commentary):
    assert escape(content) == commentary


@pytest.mark.parametrize("content, commentary", ADVERSARIAL)
def test_the_stand_in_finds_nothing_to_cut_at(content, commentary):
    assert unescaped_reserved(commentary) is None


@pytest.mark.parametrize(
    "content",
    [c for c, _ in ADVERSARIAL if escape(c) != c],
)
def test_the_stand_in_refuses_the_text_unescaped(content):
    """The stand-in is strict enough to see what each case is about."""
    assert unescaped_reserved(content) is not None


@pytest.mark.backend_independent
def test_the_preview_hands_the_same_commentary(api):
    for content, commentary in ADVERSARIAL:
        r = api.post(PREVIEW, json={"type": "personal", "content": content})
        assert r.status_code == 200, (content, r.get_json())
        assert r.get_json()["linkedin_request"]["body"]["commentary"] == commentary, content
    assert api.get(POSTS).get_json()["total"] == 0


URL_EXTENTS = [
    # (text, the URLs in it that stay whole)
    ("See https://x.example/a_b.", ["https://x.example/a_b"]),
    ("https://x.example/a_b?!", ["https://x.example/a_b"]),
    ("https://x.example/a_b:;,", ["https://x.example/a_b"]),
    ("'https://x.example/it's'", ["https://x.example/it's"]),
    ("(https://x.example/a_(b).)", ["https://x.example/a_(b)"]),
    ("(https://x.example/a.)", ["https://x.example/a"]),
    ("https://x.example/a_(b)c(d", ["https://x.example/a_(b)c"]),
    ("https://x.example/a((b))c)", ["https://x.example/a((b))c"]),
    ("https://x.example/a)(b)", ["https://x.example/a"]),
    ("https://x.example/😀", ["https://x.example/"]),
    ("https://bücher.example", ["https://b"]),
    ("a https://x.example, b http://y.example/z_1", ["https://x.example", "http://y.example/z_1"]),
    ("xhttps://x.example _http://y.example", []),
    ("https://", []),
    ("https://.example", []),
    ("ftp://x.example", []),
]


@pytest.mark.parametrize("text, found", URL_EXTENTS)
def test_where_a_url_ends(text, found):
    assert urls(text) == found


@pytest.mark.parametrize("text, found", URL_EXTENTS)
def test_the_stand_in_ends_urls_alike(text, found):
    seen, i = [], 0
    while i < len(text):
        n = url_length(text, i)
        if n:
            seen.append(text[i : i + n])
        i += n or 1
    assert seen == found


def test_link_preview_warning_counts_only_urls(api):
    """link_preview_hidden needs a URL by the same rule, not just "https://"."""
    media = ["https://cdn.example.com/a.png"]
    for content, warned in [("see https://x.example", True), ("xhttps://x.example", False)]:
        body = api.post(
            PREVIEW, json={"type": "personal", "content": content, "media_urls": media}
        ).get_json()
        assert ("link_preview_hidden" in [w["code"] for w in body["warnings"]]) is warned


def documented_examples():
    """(content, commentary) of the table in docs/linkedin.md's Escaping
    section, as a reader sees them (a table cell writes `|` as `\\|`)."""
    text = (ROOT / "docs" / "linkedin.md").read_text()
    section = text.split("## Escaping", 1)[1].split("\n## ", 1)[0]
    examples = []
    for line in section.splitlines():
        cells = re.findall(r"`((?:[^`])+)`", line.replace("\\|", "\x00"))
        if line.startswith("| `") and len(cells) == 2:
            examples.append(tuple(cell.replace("\x00", "|") for cell in cells))
    return examples


DOCUMENTED = documented_examples()


def test_the_docs_show_examples():
    assert len(DOCUMENTED) >= 10


@pytest.mark.parametrize("content, commentary", DOCUMENTED)
def test_the_docs_examples_are_what_the_code_does(content, commentary):
    assert escape(content) == commentary
    assert unescaped_reserved(commentary) is None
