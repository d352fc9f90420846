"""The lines of a source text as Python counts them, so that a line number of the engine finds its line."""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def python_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks, split only at `\\n`, `\\r\\n` and `\\r`, as CPython and libcst
    count lines. (`str.splitlines` also splits at a form feed, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029,
    which a comment or a string may hold: every later line would be looked up one off.)"""
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # the break ending the last line starts no line
    return lines


def line_starts(data: bytes) -> list[int]:
    """Offset of each line's first byte, and of the end (lines end in "\\n", "\\r\\n" or "\\r", as for CPython)."""
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts
