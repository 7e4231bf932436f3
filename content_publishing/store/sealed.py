"""Every column that holds a value sealed with the secrets key (sealing.py):
whether any is stored (a start without the key file that sealed them is
refused), and all of them read and written again (`flask secrets rotate`)."""

from content_publishing.store.db import check_initialized, dialect, execute, rows, value

# table -> (its key columns, its sealed columns)
SEALED = {
    "webhook_endpoints": (("id",), ("secret", "previous_secret", "auth_header_token")),
    "linkedin_connections": (("workspace_id", "channel_id"), ("access_token", "refresh_token")),
}


def any_stored(config):
    """Whether the database of `config` holds a sealed value (False for one
    not initialized yet)."""
    if check_initialized(config) is not None:
        return False
    return (
        value(
            "SELECT 1 FROM webhook_endpoints UNION ALL SELECT 1 FROM linkedin_connections"
            " WHERE access_token IS NOT NULL OR refresh_token IS NOT NULL LIMIT 1"
        )
        == 1
    )


def locked_rows(table):
    """Every row of `table` with a sealed value: its keys and sealed columns,
    locked until the transaction ends."""
    keys, columns = SEALED[table]
    held = " OR ".join(f"{c} IS NOT NULL" for c in columns)
    return rows(
        f"SELECT {', '.join(keys + columns)} FROM {table} WHERE {held}" + dialect().for_update
    )


def rewrite(table, row):
    """Write the row's sealed columns as `row` has them (by its keys)."""
    keys, columns = SEALED[table]
    execute(
        f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in columns)}"
        f" WHERE {' AND '.join(f'{k} = ?' for k in keys)}",
        (*(row[c] for c in columns), *(row[k] for k in keys)),
    )
