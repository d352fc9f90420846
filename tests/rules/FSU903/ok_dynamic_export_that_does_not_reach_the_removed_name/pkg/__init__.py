"""Lazy exports of the package's own settings module, which the fix does not change: the installer goes."""
import importlib


def __getattr__(name):
    return getattr(importlib.import_module(".settings", __name__), name)
