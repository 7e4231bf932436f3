"""A workspace's channels (docs/planning.md, "Channels"; docs/linkedin-connect.md):
what a channel may be (a brand page, or a member's personal profile, one
each), which channel a post goes to, and its connection to the network it
publishes on.

    changes.py      what a channel may be: create, change, delete; a leaving member's channel
    placement.py    which channel a post goes to: its channel_id, or its type and brand_id
    connections.py  a channel's connection: sealed tokens, their lifetime and status, its
                    events, whose account may connect it; the one lookup of a post's channel
                    and connection (`reach`)

Its posting slots, guards and queue are planning/'s.
"""
