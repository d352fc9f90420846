"""Source text: as messages quote it, and line by line as Python and libcst count and indent it."""

from __future__ import annotations

import io
import re
import tokenize

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def short(text: str, limit: int = 60) -> str:
    """`text` on one line, cut to `limit` characters with "..." when longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def physical_lines(text: str) -> list[str]:
    """The lines of a source as Python and libcst count them (ended by \\n, \\r\\n or \\r only; `str.splitlines`
    also ends one at a form feed, \\x1c or \\u2028), each with its end."""
    return _LINE.findall(text)


def dedent_lines(text: str, indent: str, first: bool = True) -> str:
    """`text` with `indent` taken off the start of its lines (`first`: the first one too), except the lines
    a string literal runs on and those after a backslash: libcst gives a node's code relative to the
    indentation of its block, but keeps a string's text and the white space after a backslash as written."""
    if not indent:
        return text
    kept: set[int] = set()  # lines (from 1) that go on a string literal or a backslash continuation
    ended: set[int] = set()  # lines a logical line or a comment ends on
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                kept.update(range(token.start[0] + 1, token.end[0] + 1))
            elif token.type in (tokenize.NEWLINE, tokenize.NL):
                ended.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        return text
    lines = physical_lines(text)
    kept.update(n + 1 for n, line in enumerate(lines, start=1) if n not in ended and line.rstrip("\r\n").endswith("\\"))
    return "".join(
        line[len(indent) :] if (first or number > 1) and number not in kept and line.startswith(indent) else line
        for number, line in enumerate(lines, start=1)
    )
