"""Planning content: a channel's posting times, the queue, guards and
recurring posts (docs/planning.md); the channels themselves are channels/'s.

    clock.py       wall times in a channel's zone and the instants they name (daylight saving)
    plan.py        a channel's planned posts in memory: free slots and the guards
    queue.py       "add to queue": the first free slot of the post's channel
    recurrence.py  a recurring post's next occurrence, made when one finishes
    periods.py     the dates a repeat rule names, period by period, with a bound on the search
    forecast.py    the coming occurrences of a series over a range (the calendar's planned repeats)
    hashtags.py    saved hashtag sets: names unique per workspace, created, changed, deleted

Every way of setting scheduled_at on a Scheduled post in a configured
channel (PATCH, queue, import in posts/imports.py, recurrence) locks the channel's row first and
checks its guards, so that two concurrent requests cannot both take one slot
or both fit under a cap. A post whose channel has no row is planned exactly
as before channels existed.
"""
