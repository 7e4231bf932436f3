"""What gunicorn serves: `gunicorn -c gunicorn.conf.py wsgi:app`.

Imported in each worker after the fork (no preload), so the schema check and
any migration run on the worker's own connection. The worker keeps that
connection for its requests: an open connection from the start is also how
`flask --app app restore` knows that the service is running (docs/operations.md, "Backups").
"""

from content_publishing.app import create_app
from content_publishing.store.db import init_db

app = create_app()
with app.app_context():
    init_db()
