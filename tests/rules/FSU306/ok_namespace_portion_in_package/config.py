"""A top-level module of another project in the same tree: it binds no `retries`."""

TIMEOUT = 30
