"""Webhooks: everything between a change and the user's endpoint.

events.py      which change causes which event, and the body it carries
rules.py       endpoints: what may be saved, the SSRF guard at save time, rotation
secrets.py     signing secrets sealed at rest (FLASK_SECRETS_KEY)
sender.py      one signed delivery over HTTP, with the SSRF guard at connect time

The process that sends them is content_publishing/dispatcher.py.
"""
