"""Accounts: people sign in as people (docs/accounts.md).

    passwords.py   Argon2id hashes, and what a password must be (the common-passwords list)
    sessions.py    a session's token, its CSRF token, how long it holds, and opening one
    signin.py      signing in with a password, the limit of failed sign-ins, signing out
    links.py       single-use links by mail: sign in, reset a password, the first owner's
    second_factor.py  TOTP (pyotp) and its single-use recovery codes
    profile.py     the account page's changes: name, password, second factor, the requirement

An account is a person (an email, a name, a password); a member links an
account to a workspace with a role. API keys stay what they are, for
automations; a session's permissions are its member's role.
"""
