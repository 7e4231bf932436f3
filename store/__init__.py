"""The data layer: every SQL statement of the service lives in this package.

Views and the CLI call these functions with plain values and get plain dicts
back, so a second database backend would replace this package only.
"""
