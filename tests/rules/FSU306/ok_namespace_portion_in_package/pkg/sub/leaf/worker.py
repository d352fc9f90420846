"""`leaf/` has no `__init__.py`: inside the package it is a namespace portion, `pkg.sub.leaf`."""

from ...config import retries

ATTEMPTS = retries + 1
