"""One blueprint per endpoint group; `api` nests the authenticated ones."""
