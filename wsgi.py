"""What gunicorn serves from a checkout: `gunicorn -c gunicorn.conf.py wsgi:app`."""

from content_publishing.wsgi import app

__all__ = ["app"]
