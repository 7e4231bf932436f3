"""The operator's commands, each registered on the app by `init_app`:

schema.py    flask --app app init-db / migrate [--dry-run]
keys.py      flask --app app keys create|list|revoke|demo
members.py   flask --app app members add|list|role|remove
webhooks.py  flask --app app webhooks add|list|remove|test
copy.py      flask --app app copy-db (SQLite -> PostgreSQL)
backup.py    flask --app app backup PATH / restore PATH
"""
