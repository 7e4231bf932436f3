"""Search among one owner's posts (GET /api-v2-posts?q=), at the cost of
that owner's own matches.

The text index is kept per owner: on SQLite the FTS5 rowid of a post is
its owner's id times 2^40 plus its own rowid, so that each owner's entries
are one range, which a search seeks to (backend_sqlite.OWNER_SPAN); on
PostgreSQL each word of a post is a key of the GIN index with its owner in
front ('42:launch'), and a search looks up the caller's keys alone
(backend_postgres.OWNED_TERMS). Another owner's matches are never read: a
workspace with none pays next to nothing while another has a million.

A page is found one of two ways, by how many posts match:

- up to CAP: led by the text index, the matches are read, filtered and
  sorted; their number bounds the work;
- more: led by the page's order, the owner's posts that pass the other
  filters are read in it, and each is tested against the words until the
  page is full (a word in most posts fills a page within a few rows): 64
  rows first, then 1,000 (or twice the page's end, for a deep offset). If
  the walk meets too few matches there (they lie further on), the page is
  led by the text index after all.

The total is counted up to CAP. Past it, it is an estimate (Page.estimate):
the share of matches among the rows walked for the page, times the owner's
posts that pass the other filters (at least CAP + 1), so that a page of a
broad search never counts every match.

The last word of a query, of PREFIX_MIN letters or more, also matches as
the start of a word ("webin" finds "webinar"), as someone typing expects:
FTS5's prefix query on SQLite, a range of the owner's keys ('42:webin':*) on
PostgreSQL, each read from the index as a whole word is.

Everything runs under the caller's time limit (db.time_limit): a search
that would take longer is stopped with TimedOut instead of holding a worker.
"""

from typing import NamedTuple

from content_publishing.store.db import dialect, rows, time_limit, value
from content_publishing.store.paging import Page, after_row, counted, page_rows

CAP = 10_000  # matches counted exactly; past this the total is an estimate
WALK_FIRST = 64  # rows a walk reads first: a common word fills a page within them
WALK_ROWS = 1_000  # rows a walk reads at least before it gives up on the order
PREFIX_MIN = 3  # letters of a last word that also matches as a prefix


class Terms(NamedTuple):
    """A search's words as the dialects read them: `whole`, words that must
    occur as they are; `prefix`, the last word, which may begin a longer one
    (None when it is shorter than PREFIX_MIN, and then among `whole`)."""

    whole: list
    prefix: str | None


def terms_of(words):
    """The Terms of a query's words, in the order typed."""
    if len(words[-1]) >= PREFIX_MIN:
        return Terms(list(words[:-1]), words[-1])
    return Terms(list(words), None)


def search_posts(columns, where, params, words, order, limit, offset, after, counts, ms):
    """A Page of the owner's posts matching `where` (its first clause
    `workspace_id = ?`, params[0] the owner) that hold every word, as `columns`.
    `counts`: (workspace_id, kinds, status) when content_counts can count the
    posts of the other filters; `ms`: the time limit."""
    workspace_id, filters, filter_params = params[0], where[1:], params[1:]
    terms = terms_of(words)

    def led_by_index():
        fragment, found = dialect().matched(workspace_id, terms)
        return page_rows(
            "posts",
            columns,
            [dialect().search_owner, fragment, *filters],
            [workspace_id, *found, *filter_params],
            order,
            limit,
            offset,
            after,
        )

    with time_limit(ms):
        matches = value(
            *dialect().count_matches(workspace_id, terms, filters, filter_params, CAP + 1)
        )
        if matches <= CAP:
            page, more = led_by_index()
            return Page(page, matches, more, estimate=False)
        passing = (
            counted(*counts)
            if counts
            else value(f"SELECT COUNT(*) FROM posts WHERE {' AND '.join(where)}", params)
        )
        walk = _Walk(columns, where, params, terms, order, after)
        end = offset + limit + 1
        for bound in (max(WALK_FIRST, 2 * end), max(WALK_ROWS, 2 * end)):
            page = walk.page(limit, offset, bound)
            more = len(page) > limit
            if more or passing <= bound:  # a full page, or every row read
                break
        else:  # too few matches among the rows read: they lie further on
            page, more = led_by_index()
        total = max(CAP + 1, round(walk.share(offset) * passing))
        return Page(page[:limit], total, more, estimate=True)


class _Walk:
    """The owner's rows in the page's order, each tested against the words;
    numbered, so that the share of matches among them is known."""

    def __init__(self, columns, where, params, terms, order, after):
        keyset, key = after_row(order, after)
        self.sql, self.found = dialect().walk(
            columns, f"{' AND '.join(where)}{keyset}", order, params[0], terms
        )
        self.params = [*params, *key]
        self.walked = self.hits = 0

    def page(self, limit, offset, bound):
        """Up to limit + 1 matching rows after `offset` matches, among the
        first `bound` rows."""
        found = rows(self.sql, (*self.params, bound, *self.found, limit + 1, offset))
        for row in found:
            self.walked = row.pop("n")
        self.hits = len(found)
        return found

    def share(self, offset):
        """Matches per row read, up to the last match found (0 if none)."""
        return (offset + self.hits) / self.walked if self.walked else 0.0
