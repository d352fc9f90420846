"""Source text: as messages quote it, and line by line as Python and libcst count and indent it."""

from __future__ import annotations

import ast
import bisect
import functools
import io
import keyword
import re
import tokenize
from typing import Optional

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_IDENTIFIER = re.compile(r"[^ \t\f\\\r\n(\[:]*")


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


# What the parentheses are read without: the ends of a statement (NEWLINE, INDENT, DEDENT) stay, so that a `(` that
# starts a statement is not taken for a call's after a line that ends in `)` or a string.
_NOT_CODE = frozenset({tokenize.COMMENT, tokenize.NL})
_CALLED = frozenset({tokenize.STRING, tokenize.NUMBER, getattr(tokenize, "FSTRING_END", -1)})


class NodeText:
    """A file's text read at `ast` positions: where a node starts, and its source as libcst's `code_for_node`
    gives it, sliced from the text (never generated)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = physical_lines(text)
        self.line_starts = [0]
        for line in self.lines:
            self.line_starts.append(self.line_starts[-1] + len(line))

    def column(self, line: int, byte_offset: int) -> int:
        """ast's column (UTF-8 bytes) as characters, as libcst counts them."""
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))

    def indentation(self, line: int) -> str:
        """The white space a line starts with (of the block its statement is in, for a statement's first line)."""
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip(" \t"))]

    def start(self, node: ast.AST) -> tuple[int, int]:
        """(line from 1, column from 0 in characters): libcst's place of an expression other than a tuple or a
        generator expression (ast's place of those includes their own parentheses, libcst's does not)."""
        return node.lineno, self.column(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def offset(self, line: int, byte_offset: int) -> int:
        return self.line_starts[line - 1] + self.column(line, byte_offset)

    def code(self, node: ast.AST, indentation: str = "") -> str:
        """The expression's source with the parentheses libcst gives it (those around it, not a call's), its
        continuation lines without `indentation` (of the block its statement is in), as libcst writes them."""
        start, end = self.span(node)
        text = self.text[start:end]
        return dedent_lines(text, indentation, first=False) if "\n" in text or "\r" in text else text

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The text offsets an expression's `code` is sliced from: with the parentheses libcst gives it."""
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        parens, wraps = self._parentheses
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)) and start in parens and parens[start][0] == end:
            start, end = parens[start][1]  # ast counts a pair of parentheses in, maybe the call's (`f(x for x in y)`)
        while (start, end) in wraps:
            start, end = wraps[start, end]
        return start, end

    def place(self, offset: int) -> tuple[int, int]:
        """(line from 1, column from 0 in characters) of a text offset."""
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line + 1, offset - self.line_starts[line]

    def name_after(self, node: ast.stmt, keyword: str) -> tuple[int, int]:
        """(line from 1, column from 0 in characters) of the name a `class` statement binds (`keyword`
        "class"; or a `def`'s, "def", `async def` too): after its keyword (where ast places the statement,
        decorators left out; after `async` and what follows it) and the white space or line continuations
        that follow it, as libcst places the name."""
        at = self.offset(node.lineno, node.col_offset)
        if isinstance(node, ast.AsyncFunctionDef):
            at = self._skip_space(at + len("async"))
        return self.place(self._skip_space(at + len(keyword)))

    def written(self, node: ast.AST) -> str:
        """The text between ast's start and end of a node, as written: a name as spelled (ast's identifiers are
        NFKC-normalized, libcst's are as written), no parentheses around it."""
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        return self.text[start : self.offset(node.end_lineno, node.end_col_offset)]  # type: ignore[attr-defined]

    def identifier(self, line: int, column: int) -> str:
        """The name written at (line from 1, column from 0 in characters), as spelled: up to the white space, line
        continuation or bracket after it (a `def`'s or a `class`'s name, placed by `name_after`)."""
        return _IDENTIFIER.match(self.text, self.line_starts[line - 1] + column)[0]  # type: ignore[index]

    def _skip_space(self, at: int) -> int:
        """The first offset from `at` that is not white space or a line continuation between two tokens."""
        while self.text[at] in " \t\f\\\r\n":
            at += 1
        return at

    @functools.cached_property
    def _parentheses(self) -> tuple[dict[int, tuple[int, tuple[int, int]]], dict[tuple[int, int], tuple[int, int]]]:
        """(offset of each `(` -> (the end of its `)`, the span of what is between them), the span inside each
        pair of parentheses that groups (not a call's, a `def`'s, a `class`'s or a `with` statement's) -> the span with
        them)."""
        parens: dict[int, tuple[int, tuple[int, int]]] = {}
        wraps: dict[tuple[int, int], tuple[int, int]] = {}
        lines = iter(self.lines)
        try:
            tokens = [t for t in tokenize.generate_tokens(lambda: next(lines, "")) if t.type not in _NOT_CODE]
        except (tokenize.TokenError, SyntaxError):
            return parens, wraps  # ast parsed it: not expected; the slices are then ast's own
        opened: list[int] = []
        for index, token in enumerate(tokens):
            if token.string == "(" and token.type == tokenize.OP:
                opened.append(index)
            elif token.string == ")" and token.type == tokenize.OP and opened:
                first = opened.pop()
                if first + 1 == index:
                    continue  # `()`
                inside = (self._at(tokens[first + 1].start), self._at(tokens[index - 1].end))
                outside = (self._at(tokens[first].start), self._at(token.end))
                parens[outside[0]] = (outside[1], inside)
                before = tokens[first - 1] if first else None
                after = tokens[index + 1] if index + 1 < len(tokens) else None
                if not _calls(before) and not _with_items(before, after):
                    wraps[inside] = outside
        return parens, wraps

    def _at(self, position: tuple[int, int]) -> int:
        """The text offset of a token's (line, column in characters)."""
        return self.line_starts[position[0] - 1] + position[1]


def _with_items(before: Optional[tokenize.TokenInfo], after: Optional[tokenize.TokenInfo]) -> bool:
    """Whether a `(` after this token and its `)` before that one hold a `with` statement's items (`with (a):`):
    libcst gives those parentheses to the statement, not to the one item's expression."""
    return (
        before is not None
        and before.type == tokenize.NAME
        and before.string == "with"
        and after is not None
        and after.type == tokenize.OP
        and after.string == ":"
    )


def _calls(before: Optional[tokenize.TokenInfo]) -> bool:
    """Whether a `(` after this token opens a call's (or a `def`'s, a `class`'s) parentheses."""
    if before is None:
        return False
    if before.type == tokenize.NAME:
        return not keyword.iskeyword(before.string)
    return before.type in _CALLED or (before.type == tokenize.OP and before.string in ")]}")
