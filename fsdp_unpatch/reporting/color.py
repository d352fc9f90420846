"""Whether to colour the text output: `--color auto|always|never`, NO_COLOR and FORCE_COLOR.

The flag wins. Under `auto`, NO_COLOR (https://no-color.org, any non-empty value) turns colour off,
then FORCE_COLOR (any non-empty value) turns it on even into a pipe or a file, as ruff does; else
colour is used only when the output is a terminal.
"""

from __future__ import annotations

from typing import Mapping, Optional

CHOICES = ("auto", "always", "never")


def use_color(choice: str, stream, environ: Mapping[str, str], to_file: bool = False) -> bool:
    if choice == "always":
        return True
    if choice == "never" or environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return not to_file and _isatty(stream)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def color_choice(color: Optional[str], no_color: bool) -> str:
    """`--no-color` is `--color never`."""
    return "never" if no_color else (color or "auto")
