"""The operator's commands, each registered on the app by `init_app`, and
the container image's entrypoint (run as a module, not registered):

schema.py    flask --app app init-db / migrate [--dry-run]
keys.py      flask --app app keys create|list|revoke|demo
members.py   flask --app app members add|list|role|remove
accounts.py  flask --app app accounts link EMAIL [--reset]
webhooks.py  flask --app app webhooks add|list|remove|test
secrets.py   flask --app app secrets new-key|rotate (the secrets key)
copy.py      flask --app app copy-db (SQLite -> PostgreSQL)
backup.py    flask --app app backup PATH / restore PATH
container.py python -m content_publishing.cli.container CMD... (the Dockerfile's)
"""
