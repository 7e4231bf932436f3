"""Analytics: what each published post did on the network, and what a
channel's own results say about when to post (docs/analytics.md).

    snapshots.py  stats snapshots: the one way figures come in (the API, and
                  the service's own LinkedIn publisher), each item kept or
                  refused on its own; engagement
    collection.py when the service collects a post's figures itself (1 hour,
                  24 hours, 7 days, 30 days after it went out), the retries
    zone.py       local weeks, weekdays and hours of a zone as whole numbers
    report.py     totals, weeks, top posts and the weekday x hour grid of a range
    slots.py      the suggested slots: which hours did clearly better (the rule)
    sheet.py      the report as CSV, safe from formula injection

Figures are read from post_metrics, one row per Published post holding its
latest snapshot, which `snapshots.record` keeps in the same transaction as
the snapshots themselves.
"""
