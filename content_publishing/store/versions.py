"""The schema version this code writes, shared by both backends.

SQLite keeps it in PRAGMA user_version, PostgreSQL in the schema_version
table; a database with a newer version is refused rather than misread.
"""

SCHEMA_VERSION = 9


class SchemaTooNew(Exception):
    def __init__(self, found, version=SCHEMA_VERSION):
        super().__init__(f"database schema version {found} is newer than this code ({version})")
