"""String literals as libcst splits them, read from the `ast` model's tree and the parsed text.

libcst has a node for each literal of a concatenation (`"a" "b"`: two `SimpleString`s) and for each stretch of
an f-string's text (`FormattedStringText`, `{{` and `}}` kept as written, a format spec's text too); `ast` joins
side-by-side literals into one `Constant` (or one `JoinedStr`), adds text libcst has none for (`f"{x=}"`), and
places the parts of an f-string differently before and after Python 3.12 (before 3.12 it finds a nested
expression by searching the f-string's text for it, and may find the wrong one). So the parts are lexed here
from the source span of each string expression ast gives (its start and end are right on every Python): the
same code on every Python, and each part starts where libcst places it. `parts` is the one place that knows
Python's string syntax; it follows libcst's parser: in a format spec `{` always opens a field (`{x:{{}}}`), a
non-raw `\\N{...}` is an escape, `\\{` a backslash before a field.
"""

from __future__ import annotations

import ast
import re
import tokenize
from dataclasses import dataclass
from typing import Iterator, Optional

from fsdp_unpatch.semantic.text import NodeText

# A t-string (Python 3.14): its own text is no `FormattedStringText` (libcst has a node of its own for it), the
# strings in its fields are read.
_TEMPLATE: tuple[type, ...] = (ast.TemplateStr,) if hasattr(ast, "TemplateStr") else ()
_PREFIXES = frozenset(("", "r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"))  # lowered
_WORD = re.compile(r"\w+")
_SPACE = " \t\f\r\n"


@dataclass(frozen=True)
class Part:
    """A `SimpleString` (`text`: the whole literal, prefix and quotes) or a `FormattedStringText` (the text as
    written), starting at `offset` in the parsed text."""

    text: str
    offset: int


@dataclass(frozen=True)
class Lexed:
    """A string expression: its parts in source order, and how many literals stand side by side in it."""

    parts: list[Part]
    literals: int


def string_nodes(tree: ast.AST) -> Iterator[ast.expr]:
    """Each string expression of the tree (a `str` or `bytes` constant, an f-string, a t-string), a concatenation
    whole, outside one another (the strings in an f-string's fields are its parts), in no set order."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Constant):
                if isinstance(child.value, (str, bytes)):
                    yield child
            elif isinstance(child, (ast.JoinedStr, *_TEMPLATE)):
                yield child  # type: ignore[misc]
            else:
                stack.append(child)


def string_span(text: NodeText, node: ast.expr) -> tuple[int, int]:
    """The text offsets of a string expression (ast's: from the first literal's prefix to the last's quote)."""
    return text.offset(node.lineno, node.col_offset), text.offset(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]


def docstrings(tree: ast.Module, text: NodeText) -> Iterator[ast.expr]:
    """The string expressions libcst's tree counts as docstrings (the first small statement of a module, or of a
    function's or class's indented block, is an expression of one `SimpleString` or a `ConcatenatedString`):
    a `str` or `bytes` literal, or literals side by side with an f-string among them (a lone f-string is not);
    `def f(): "doc"` has no indented block."""
    holders: list[ast.AST] = [tree]
    holders += [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for holder in holders:
        body = holder.body  # type: ignore[attr-defined]
        first = body[0] if body else None
        if not isinstance(first, ast.Expr):
            continue
        value = first.value
        if isinstance(value, ast.Constant):
            if not isinstance(value.value, (str, bytes)):
                continue
        elif isinstance(value, ast.JoinedStr):
            lexed = parts(text.text, *string_span(text, value))
            if lexed is None or lexed.literals < 2:
                continue
        else:
            continue
        if holder is tree or _indented(text, holder, first):  # type: ignore[arg-type]
            yield value


def _indented(text: NodeText, header: ast.stmt, first: ast.stmt) -> bool:
    """Whether the body `first` starts is an indented block (not on the line of `header`'s colon)."""
    at = text.offset(first.lineno, first.col_offset)
    before = at
    while before > 0 and text.text[before - 1] in " \t\f":
        before -= 1
    if before > 0 and text.text[before - 1] not in "\r\n":
        return False  # after the colon, on its line
    end = before - 1 if before > 0 else 0  # the end of the line before (its \n, \r\n or \r)
    if end > 0 and text.text[end] == "\n" and text.text[end - 1] == "\r":
        end -= 1
    if end == 0 or text.text[end - 1] != "\\":
        return True  # the first on its line, and no line continuation before it
    # A backslash ends the line before: a line continuation, or the end of a comment. tokenize tells.
    lines, place = iter(text.lines[header.lineno - 1 :]), text.place(at)
    try:
        for token in tokenize.generate_tokens(lambda: next(lines, "")):
            if (token.start[0] + header.lineno - 1, token.start[1]) >= place:
                return False
            if token.type == tokenize.NEWLINE:
                return True
    except (tokenize.TokenError, SyntaxError):  # not expected: ast parsed it
        pass
    return False


def parts(source: str, start: int, end: int) -> Optional[Lexed]:
    """The parts libcst visits of the string expression at `source[start:end]` (ast's span of it), in source
    order: each literal that is no f-string, each stretch of text of an f-string, and the same of the strings
    in its replacement fields, nested f-strings too. None when it does not lex (not expected: ast parsed it)."""
    lexer = _Lexer(source, end)
    found: list[Part] = []
    literals, at = 0, start
    try:
        while at < end:
            char = source[at]
            if char in _SPACE:
                at += 1
            elif char == "\\":  # a line continuation between two literals
                at += 2
            elif char == "#":  # a comment between two literals (inside parentheses)
                at = lexer.line_end(at)
            else:
                at = lexer.literal(at, found)
                literals += 1
    except _NotLexed:
        return None
    return Lexed(found, literals)


class _NotLexed(Exception):
    pass


class _Lexer:
    def __init__(self, source: str, end: int) -> None:
        self.source, self.end = source, end

    def char(self, at: int) -> str:
        if at >= self.end:
            raise _NotLexed
        return self.source[at]

    def line_end(self, at: int) -> int:
        while at < self.end and self.source[at] not in "\r\n":
            at += 1
        return at

    def literal(self, at: int, found: list[Part]) -> int:
        """Lex the literal that starts at `at` (its prefix); its parts go to `found`; where it ends."""
        word = _WORD.match(self.source, at, self.end)
        prefix = word[0] if word else ""
        if prefix.lower() not in _PREFIXES:
            raise _NotLexed
        quote_at = at + len(prefix)
        quote = self.char(quote_at)
        if quote not in "'\"":
            raise _NotLexed
        if self.source.startswith(quote * 3, quote_at):
            quote *= 3
        body = quote_at + len(quote)
        lowered = prefix.lower()
        if "f" not in lowered and "t" not in lowered:
            end = self._plain_end(body, quote)
            found.append(Part(self.source[at:end], at))
            return end
        return self._formatted(body, quote, "r" in lowered, "f" in lowered, found)

    def _plain_end(self, at: int, quote: str) -> int:
        while True:
            char = self.char(at)
            if char == "\\":
                at += 2
            elif self.source.startswith(quote, at):
                return at + len(quote)
            else:
                at += 1

    def _formatted(self, at: int, quote: str, raw: bool, text_parts: bool, found: list[Part]) -> int:
        """The body of an f-string (or t-string) from `at`: its text (when `text_parts`) and the parts of its
        fields go to `found`; where it ends (after its closing quote)."""
        start = at
        while True:
            char = self.char(at)
            if char == "\\":
                after = self.char(at + 1)
                if after in "{}":
                    at += 1  # a backslash before a field (or a brace), as libcst reads it
                elif after == "N" and not raw and self.char(at + 2) == "{":
                    close = self.source.find("}", at, self.end)  # a character's name: `\N{EM DASH}`
                    if close < 0:
                        raise _NotLexed
                    at = close + 1
                else:
                    at += 2
            elif char == "{" and self.char(at + 1) == "{":
                at += 2
            elif char == "}" and self.char(at + 1) == "}":
                at += 2
            elif char == "{":
                self._text(start, at, text_parts, found)
                at = start = self._field(at + 1, raw, text_parts, found)
            elif char == "}":
                raise _NotLexed
            elif self.source.startswith(quote, at):
                self._text(start, at, text_parts, found)
                return at + len(quote)
            else:
                at += 1

    def _text(self, start: int, end: int, wanted: bool, found: list[Part]) -> None:
        if wanted and end > start:
            found.append(Part(self.source[start:end], start))

    def _field(self, at: int, raw: bool, text_parts: bool, found: list[Part]) -> int:
        """A replacement field's expression from `at` (after its `{`): the strings in it go to `found`, then its
        conversion and format spec; where the field ends (after its `}`)."""
        depth = 0
        while True:
            char = self.char(at)
            if char in _SPACE:
                at += 1
            elif char == "#":  # a comment in a field (Python 3.12+)
                at = self.line_end(at)
            elif char == "\\":
                at += 2
            elif char in "'\"":
                at = self.literal(at, found)
            elif char.isalnum() or char == "_" or ord(char) > 127:
                word = _WORD.match(self.source, at, self.end)
                if word is None:
                    at += 1
                    continue
                after = word.end()
                if after < self.end and self.source[after] in "'\"" and word[0].lower() in _PREFIXES:
                    at = self.literal(at, found)
                else:
                    at = after
            elif char in "([{":
                depth += 1
                at += 1
            elif char in ")]":
                depth -= 1
                at += 1
            elif char == "}":
                if depth == 0:
                    return at + 1
                depth -= 1
                at += 1
            elif char == "!" and depth == 0 and self.char(at + 1) != "=":
                at += 1  # the conversion's letter follows, then `:` or `}`
            elif char == ":" and depth == 0:
                return self._spec(at + 1, raw, text_parts, found)
            elif char == "!":
                at += 2  # `!=`
            else:
                at += 1

    def _spec(self, at: int, raw: bool, text_parts: bool, found: list[Part]) -> int:
        """A format spec from `at` (after its `:`): its text and the parts of its fields go to `found`; where the
        field it is in ends (after its `}`)."""
        start = at
        while True:
            char = self.char(at)
            if char == "\\" and self.char(at + 1) not in "{}":
                at += 2
            elif char == "{":
                self._text(start, at, text_parts, found)
                at = start = self._field(at + 1, raw, text_parts, found)
            elif char == "}":
                self._text(start, at, text_parts, found)
                return at + 1
            else:
                at += 1
