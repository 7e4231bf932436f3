"""What gunicorn serves: `gunicorn -c gunicorn.conf.py wsgi:app`.

Imported in each worker after the fork (no preload), so the schema check and
any migration run on the worker's own connection, which is then closed.
"""

from app import create_app
from store.db import dispose_db, init_db

app = create_app()
with app.app_context():
    init_db()
    dispose_db()
