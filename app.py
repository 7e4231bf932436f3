"""`flask --app app ...` from a checkout: the application factory lives in the package."""

from content_publishing.app import create_app

__all__ = ["create_app"]
