"""The language of what people read. On this branch: English only, every function the identity.

A minimal stand-in with the interface of the gettext module the `zh` branch adds (same names, same
signatures): text meant for translation is written as `gettext("...")` (or marked `N_("...")` where it
is defined, and passed to `gettext` where it is used), so that catalogs can be extracted from the code
and a translation needs no change where the text is used.
"""

from __future__ import annotations


def gettext(message: str) -> str:
    """`message` in the current language: here always English, itself."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a string marked for extraction, not translated here)
    return message
