"""What the source itself asks to leave alone: `# noqa` on a line, `# fsdp-unpatch: skip-file` for a file,
and where each code of a `# noqa` stands (FSU501 says which suppress nothing: `rules/unused_noqa.py`).

`reported` is where noqa comments, and `--ignore-noqa`, are applied to findings: the engine's selection (the
findings of the libcst analysis and of the `ast` model, before any fix is planned: a silenced finding is not
fixed), FSU501's findings and FSU306's hand theirs to it.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Protocol, TypeVar

from fsdp_unpatch.files.lines import python_lines
from fsdp_unpatch.lazy_re import LazyPattern

NOQA = LazyPattern(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
SKIP_FILE = LazyPattern(rb"^[ \t]*#[ \t]*fsdp-unpatch:[ \t]*skip-file[ \t]*$", re.MULTILINE)
CODE = LazyPattern(r"[A-Z]+[0-9]+", re.IGNORECASE)
# `# noqa FSU101`: codes after white space, no colon. Read as a bare `# noqa` (as flake8 and ruff do), but
# `rules/noqa_missing_colon.py` says so, and such a comment cannot silence that rule's own finding.
NOQA_WITHOUT_COLON = LazyPattern(r"#\s*noqa\s+(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
# The codes a noqa comment without a colon cannot silence (FSU502 adds its own when the registry loads it).
NOT_SILENCED_WITHOUT_COLON: set[str] = set()
OWN_PREFIX = "FSU"  # this tool's codes; other tools' codes in a `# noqa` are theirs to judge


def noqa_codes(lines: list[str], line: int) -> Optional[frozenset[str]]:
    """The codes a `# noqa` on 1-based `line` names; an empty set for a bare `# noqa`; None if none."""
    if not 1 <= line <= len(lines):
        return None
    match = NOQA.search(lines[line - 1])
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(code.upper() for code in re.split(r"[\s,]+", codes) if code)


def is_suppressed(lines: list[str], line: int, code: str) -> bool:
    codes = noqa_codes(lines, line)
    if codes is None:
        return False
    if not codes:
        return code not in NOT_SILENCED_WITHOUT_COLON or NOQA_WITHOUT_COLON.search(lines[line - 1]) is None
    return code in codes


class _Coded(Protocol):
    @property
    def code(self) -> str: ...


F = TypeVar("F", bound=_Coded)


def reported(found: Iterable[F], line: Callable[[F], int], text: Callable[[], str], *, ignore_noqa: bool) -> list[F]:
    """The findings of one file the run reports, in their order: all of `found` under `ignore_noqa`, else those
    that no `# noqa` comment of their line silences. `line(f)`: f's 1-based line in the file (an excerpt's
    finding at the file's line; a line outside the file has no comment); `text()`: the file's text, read, and
    split into lines, only when a finding may be silenced."""
    found = list(found)
    if ignore_noqa or not found:
        return found
    source = text()
    if NOQA.search(source) is None:  # no line holds a noqa comment
        return found
    lines = python_lines(source)
    return [f for f in found if not is_suppressed(lines, line(f), f.code)]


def skips_file(data: bytes) -> bool:
    """A line `# fsdp-unpatch: skip-file` anywhere in the file: the run neither reports nor fixes it."""
    return b"skip-file" in data and SKIP_FILE.search(data) is not None


@dataclass(frozen=True)
class NoqaCode:
    """One code named by a `# noqa: ...` comment, with where it stands (1-based line, columns)."""

    line: int
    column: int
    end_column: int
    code: str


@dataclass(frozen=True)
class Comment:
    """A real comment of a text (tokenize: a `#` inside a string is none): 1-based line, 0-based column."""

    line: int
    column: int
    text: str


def comments(text: str) -> tuple[list[Comment], bool]:
    """The comments of `text` in order, and whether all of it was tokenized: a tokenize error (a text
    CPython cannot read, that libcst may) ends the list where it stops."""
    found = []
    try:
        # Lines end in "\n", "\r\n" or a lone "\r", as libcst and CPython count them (`newline=None`).
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type == tokenize.COMMENT:
                found.append(Comment(token.start[0], token.start[1], token.string))
    except (tokenize.TokenError, SyntaxError):
        return found, False
    return found, True


def noqa_code_positions(text: str) -> list[NoqaCode]:
    """Every code in every real `# noqa: ...` comment, none in a text that does not tokenize."""
    if "noqa" not in text.lower():
        return []
    found = []
    all_of_it, complete = comments(text)
    if not complete:
        return []
    for comment in all_of_it:
        match = NOQA.search(comment.text)
        if match is None or not match.group("codes"):
            continue
        start = match.start("codes")
        for code in CODE.finditer(match.group("codes")):
            column = comment.column + start + code.start()
            found.append(NoqaCode(comment.line, column + 1, column + 1 + len(code.group()), code.group().upper()))
    return found
