"""The service's own publisher, in the dispatcher process (docs/linkedin-connect.md):
due posts of connected channels published once each, their figures read.

    loop.py       the threads: a round takes due posts, unknown outcomes and collections
    run.py        one post's run: its plan published, or an unknown outcome settled
    commits.py    the threads' writes committed together: one disk flush for many
    collect.py    one post's figures read, when their collection is due
    tokens.py     a channel's token: fresh for a run, refreshed once on a 401, kept ahead
    network.py    the seam: what a network must do, and which network a channel's is

Nothing here names a network but network.py; linkedin/ is the one behind it.
"""
