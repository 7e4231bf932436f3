"""Webhooks: everything between a change and a workspace's endpoints.

events.py      which change causes which event, and the body it carries
rules.py       endpoints: what may be saved, the SSRF guard at save time, rotation
secrets.py     signing secrets and header tokens, made and shown once (sealed: sealing.py)
delivery.py    one signed delivery, through the outbound client (outbound.py)

The process that sends them is content_publishing/dispatcher.py.
"""
