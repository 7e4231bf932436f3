"""Idempotent creation: a retried POST with the same Idempotency-Key gets
the record the first request made, instead of a second record.

Requests are compared by their loaded fields, not their bytes: a retry that
spells a default out (`"media_urls": []`), orders keys differently, or gives
the same time in another offset is the same request.
"""

import hashlib
import json

from content_publishing.errors import conflict
from content_publishing.store.db import is_unique_violation, savepoint


def fingerprint(fields):
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def create_once(keys, workspace_id, key, fields, insert, get, now):
    """`insert()` the record, unless `key` was used before by this workspace.

    `keys` is the resource's idempotency-key store (store.idempotency); run
    inside the caller's transaction. Returns the record; the same key with
    other fields is a 409.
    """
    if key is None:
        return insert()
    digest = fingerprint(fields)
    earlier = keys.find(workspace_id, key)
    if earlier is None:
        try:
            with savepoint():
                record = insert()
                keys.save(workspace_id, key, digest, record["id"], now)
                return record
        except Exception as error:
            # A concurrent request with the same key committed first (the
            # unique constraint waited for it): its record is the answer.
            if not is_unique_violation(error):
                raise
        earlier = keys.find(workspace_id, key)
    if earlier["request_hash"] != digest:
        raise conflict(
            "This Idempotency-Key was used with a different request body.",
            {"idempotency_key": key},
        )
    return get(workspace_id, earlier["record_id"])


def run_once(keys, workspace_id, key, fields, run, get, now):
    """`run()` the work once per key of this workspace, for work that a racer
    must not start again (an import: a second run would find the first
    one's posts in its channel's plan and refuse them).

    `keys` is a store.idempotency.ClaimedKeys: the key is claimed before the
    work, so a concurrent request with the same key waits for the first
    one's transaction and then answers its stored result, as a retry after
    it would. Returns run()'s or get()'s result; the same key with other
    fields is a 409."""
    if key is None:
        return run()
    digest = fingerprint(fields)
    if keys.claim(workspace_id, key, digest, now):
        result = run()
        keys.settle(workspace_id, key, result["id"])
        return result
    earlier = keys.find(workspace_id, key)
    if earlier["request_hash"] != digest:
        raise conflict(
            "This Idempotency-Key was used with a different request body.",
            {"idempotency_key": key},
        )
    return get(workspace_id, earlier["record_id"])
