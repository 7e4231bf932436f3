"""marshmallow schemas: what each endpoint accepts and returns.

The views load requests and dump records with these instances, and the
OpenAPI document is generated from the same ones.
"""
