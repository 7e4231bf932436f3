"""Accounts, their members, sign-in links and failed sign-ins (migration
0021 says what each table holds). Sessions are in store/sessions.py.

An email is stored lower-cased; callers pass it so (accounts/passwords.py
and the schemas lower it), and so the table's UNIQUE holds "one account an
address" whatever the case it was typed in."""

from content_publishing.store.db import dialect, execute, one, rows, value

COLUMNS = "id, email, name, password_hash, totp_secret, totp_enabled_at, created_at, updated_at"


def find_by_email(email):
    return one(f"SELECT {COLUMNS} FROM accounts WHERE email = ?", (email,))


def get_account(account_id, lock=False):
    return one(
        f"SELECT {COLUMNS} FROM accounts WHERE id = ?" + (dialect().for_update if lock else ""),
        (account_id,),
    )


def insert_account(email, name, password_hash, now):
    """The new account, or None when the address has one already."""
    return one(
        "INSERT INTO accounts (email, name, password_hash, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING"
        f" RETURNING {COLUMNS}",
        (email, name, password_hash, now, now),
    )


def update_account(account_id, changes, now):
    """Write `changes` (name, email, password_hash, totp_secret,
    totp_enabled_at); the new record."""
    assignments = ", ".join(f"{column} = ?" for column in changes)
    return one(
        f"UPDATE accounts SET {assignments}, updated_at = ? WHERE id = ? RETURNING {COLUMNS}",
        (*changes.values(), now, account_id),
    )


# --- members of an account -------------------------------------------------------------

_MEMBER = (
    "m.id AS member_id, m.workspace_id, w.name AS workspace_name, m.name AS member_name,"
    " m.email AS member_email, m.role, m.removed_at, m.account_id,"
    " w.require_second_factor"
    " FROM members m JOIN workspaces w ON w.id = m.workspace_id"
)


def memberships(account_id):
    """The account's members still in, with their workspaces, oldest first."""
    return rows(
        f"SELECT {_MEMBER} WHERE m.account_id = ? AND m.removed_at IS NULL ORDER BY m.id",
        (account_id,),
    )


def member_by_email(email):
    """The oldest member still in whose member email is `email`, without an
    account: whom a sign-in link to that address may make an account for."""
    return one(
        f"SELECT {_MEMBER} WHERE lower(m.email) = ? AND m.removed_at IS NULL"
        " AND m.account_id IS NULL ORDER BY m.id LIMIT 1",
        (email,),
    )


def get_membership(member_id):
    return one(f"SELECT {_MEMBER} WHERE m.id = ?", (member_id,))


def link_member(member_id, account_id):
    """Make member `member_id` the account's, unless it is someone else's
    already or the account has a member in that workspace; whether it did."""
    return (
        one(
            "UPDATE members SET account_id = ? WHERE id = ? AND removed_at IS NULL"
            " AND (account_id IS NULL OR account_id = ?) AND NOT EXISTS (SELECT 1 FROM members o"
            " WHERE o.account_id = ? AND o.removed_at IS NULL AND o.id <> members.id"
            " AND o.workspace_id = members.workspace_id) RETURNING id",
            (account_id, member_id, account_id, account_id),
        )
        is not None
    )


def link_members_by_email(account_id, email):
    """Every member still in, with this member email and no account, becomes
    the account's (one per workspace: the oldest)."""
    for member in rows(
        "SELECT id FROM members WHERE lower(email) = ? AND removed_at IS NULL"
        " AND account_id IS NULL ORDER BY id",
        (email,),
    ):
        link_member(member["id"], account_id)


# --- sign-in links -----------------------------------------------------------------------


def insert_link(token_hash, purpose, account_id, member_id, expires_at, now):
    execute(
        "INSERT INTO sign_in_links (token_hash, purpose, account_id, member_id, expires_at,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (token_hash, purpose, account_id, member_id, expires_at, now),
    )


def use_link(token_hash, now):
    """Take the link up: mark it used, only if it was not, in one statement
    (so that of two requests with the same link exactly one gets it); the
    link as it was, or None when unknown or used already."""
    return one(
        "UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL"
        " RETURNING token_hash, purpose, account_id, member_id, expires_at, created_at",
        (now, token_hash),
    )


def find_link(token_hash):
    return one(
        "SELECT token_hash, purpose, account_id, member_id, expires_at, used_at"
        " FROM sign_in_links WHERE token_hash = ?",
        (token_hash,),
    )


def end_links(account_id, now):
    """Every unused link of the account ends (a new password was set)."""
    execute(
        "UPDATE sign_in_links SET used_at = ? WHERE account_id = ? AND used_at IS NULL",
        (now, account_id),
    )


# --- failed sign-ins ---------------------------------------------------------------------


def add_failures(subjects, now):
    for subject in subjects:
        execute("INSERT INTO sign_in_failures (subject, at) VALUES (?, ?)", (subject, now))


def failures_since(subject, since):
    """(how many failures of `subject` after `since`, the oldest's time)."""
    found = one(
        "SELECT COUNT(*) AS n, MIN(at) AS oldest FROM sign_in_failures"
        " WHERE subject = ? AND at > ?",
        (subject, since),
    )
    return found["n"], found["oldest"]


def forget_failures(before):
    """Failures older than the window count for nothing: they go."""
    execute("DELETE FROM sign_in_failures WHERE at <= ?", (before,))


def count_accounts():
    return value("SELECT COUNT(*) FROM accounts")


# --- recovery codes ----------------------------------------------------------------------


def replace_recovery_codes(account_id, code_hashes):
    execute("DELETE FROM recovery_codes WHERE account_id = ?", (account_id,))
    for code_hash in code_hashes:
        execute(
            "INSERT INTO recovery_codes (account_id, code_hash) VALUES (?, ?)",
            (account_id, code_hash),
        )


def use_recovery_code(account_id, code_hash, now):
    """Whether an unused code of the account had this hash (now used)."""
    return (
        one(
            "UPDATE recovery_codes SET used_at = ? WHERE account_id = ? AND code_hash = ?"
            " AND used_at IS NULL RETURNING code_hash",
            (now, account_id, code_hash),
        )
        is not None
    )


def recovery_codes_left(account_id):
    return value(
        "SELECT COUNT(*) FROM recovery_codes WHERE account_id = ? AND used_at IS NULL",
        (account_id,),
    )


def set_required_second_factor(workspace_id, required):
    execute(
        "UPDATE workspaces SET require_second_factor = ? WHERE id = ?",
        (1 if required else 0, workspace_id),
    )
