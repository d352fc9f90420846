"""An excerpt (`excerpt.py`): the text libcst parses in place of a large file, in which a *hole*'s placeholder
statements stand for a run of statements held aside, and a *literal*'s placeholder name for a large display
of numbers held out (`numbers.py`), and how the fixed file is put back together from it."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Protocol, Sequence

from fsdp_unpatch.analysis.numbers import HOLE
from fsdp_unpatch.analysis.screen import Detail


class HeldAside(Protocol):
    """What a placeholder needs of a statement it stands for."""

    kind: str  # `statement_shape.kind_of`
    last_indent: Optional[bytes]  # the indentation of the indented block its text ends with, if any


@dataclass
class Excerpt:
    """The text libcst parses in place of the file, and what is needed to put the file back together."""

    text: bytes
    holes: list[tuple[bytes, bytes]]  # (placeholder, the original statements), in file order
    hole_lines: list[int]  # the file line where each hole starts
    hidden: Detail  # the names the statements held aside use, spell and assign
    anchors: list[tuple[int, int]]  # (excerpt line, file line) where a stretch of lines starts
    file_lines: int
    seeded: bool  # some statement can hold a finding (not only imports and the docstring)
    # (placeholder, the original display): large displays of numbers held out (`numbers.py`); a placeholder
    # goes with the statement it is in when a fix deletes that
    literals: list[tuple[bytes, bytes]] = field(default_factory=list)
    # excerpt line -> (column where a literal's placeholder ends, how many columns further its display ends)
    shifts: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def file_line(self, line: int) -> int:
        """The line of the file where line `line` of the excerpt is (a placeholder: where its hole starts)."""
        at = bisect.bisect_right(self.anchors, (line, float("inf"))) - 1
        excerpt_start, file_start = self.anchors[max(at, 0)]
        return file_start + (line - excerpt_start)

    def file_column(self, line: int, column: int) -> int:
        """The file's column for a column of the excerpt's line `line` (after a literal's placeholder, further)."""
        return column + sum(shift for end, shift in self.shifts.get(line, ()) if end <= column)

    def file_text(self, text: str) -> str:
        """`text` (a fix's replacement) with each literal's placeholder replaced by its display."""
        for placeholder, original in self.literals:
            text = text.replace(placeholder.decode(), original.decode())
        return text

    def may_hide(self, names: Iterable[str]) -> bool:
        """Whether statements held aside may use one of `names`: they spell it, or the file imports it under
        another name (`from m import name as go`; kept imports are never held aside)."""
        encoded = [name.encode() for name in names]
        if any(name in original for _, original in self.holes for name in encoded):
            return True
        renamed = re.compile(rb"\b(?:%s)\s+as\s" % b"|".join(re.escape(name) for name in encoded))
        return bool(encoded) and renamed.search(self.text) is not None

    def holes_spelling(self, word: bytes) -> list[tuple[int, bytes]]:
        """(first line, original text) of the holes that spell `word`."""
        return [(line, original) for line, (_, original) in zip(self.hole_lines, self.holes) if word in original]

    def splice(self, fixed: bytes) -> Optional[bytes]:
        """The file for a fixed excerpt: each hole's placeholder replaced by its statements (None when one is
        missing), then each literal's by its display (none left when a fix deleted the statement it is in)."""
        out, position = [], 0
        for placeholder, original in self.holes:
            found = fixed.find(placeholder, position)
            if found < 0:
                return None
            out += [fixed[position:found], original]
            position = found + len(placeholder)
        out.append(fixed[position:])
        spliced = b"".join(out)
        for placeholder, original in self.literals:
            spliced = spliced.replace(placeholder, original)
        return spliced


# One placeholder statement per kind of statement a hole holds (`statement_shape.kind_of`), on one line each; the last one
# ends in an indented block when the hole does (the block's footer: comments indented below it), and so does
# the one for the statement holding the file's first indented block (libcst takes the module's indentation
# from it).
_STUBS = {
    # kind: (simple form, block form) around the placeholder's name
    "test": (b"def test%s(): pass", b"def test%s():"),
    "definition": (b"def %s(): pass", b"def %s():"),
    "quiet": (b"%s = None", b'if __name__ == "%s":'),
    "other": (b"%s", b"if %s:"),
}


def placeholder_for(
    number: int, run: Sequence[HeldAside], newline: bytes, indent: bytes, first_block: Optional[HeldAside]
) -> bytes:
    """The statements standing for `run`: one per kind (`_STUBS`), on one line each, but the last one, which
    ends in a block indented as the run's does (if it does), and the one of the file's first indented block,
    indented as the file's is (`indent`)."""
    name = HOLE + str(number).encode() + b"__"
    wanted: list[tuple[str, Optional[bytes]]] = []  # (kind, indentation of its block form, or None)
    for part in run:
        if all(kind != part.kind for kind, _ in wanted):
            wanted.append((part.kind, indent if part is first_block else None))
    last = (run[-1].kind, run[-1].last_indent)
    if wanted[-1] != last:
        wanted.append(last)
    lines = []
    for kind, block in wanted:
        simple, header = _STUBS[kind]
        lines.append(simple % name if block is None else header % name + newline + block + b"pass")
    return newline.join(lines) + newline
