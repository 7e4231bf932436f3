"""A workspace: its members and invitations, and its settings
(docs/api.md, "Workspaces, members and roles", "The workspace").

    members.py     a workspace's members: invite, change, remove, an invitation taken up
    settings.py    the workspace's settings (approvals) and what a change of each does

What each role may do is roles.py's; approvals of posts are posts/approvals.py's.
"""
