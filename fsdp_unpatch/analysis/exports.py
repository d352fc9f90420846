"""What a file's `__all__` lists: the names (a name listed keeps the function or import it names) and, at
module level, the entries a fix deletes with a function (`from module import *` must not name it).

Facts, not decisions, so below the rules. Read from the `ast` model of the parsed text (`semantic/model.py`:
its tree), no libcst (issue 32 item 4); each entry stands where libcst places the node whose deletion drops it
(`planned.Located`), and `FileAnalysis.dunder_all_entries` finds those libcst nodes by their places. Read as
`analysis/collect.py` read the libcst tree: `__all__ = [...]` or a tuple (a chained assignment's every
`__all__` target), `__all__ += [...]`, `__all__: list[str] = [...]`, `__all__.extend([...])` and
`__all__.append("x")` (one argument), in any scope; an entry is a name's list or tuple element, or the whole
`.append` statement (its statement line when it is alone on it, else the small statement), and only outside
every function and class. A name is the value of one string literal (libcst's SimpleString): not literals
written side by side (ast joins `"a" "b"` into one constant: told apart by tokenizing its source), not an
f-string, not bytes. One difference: `__all__` is read as Python reads it (NFKC: `__ａll__` is `__all__`),
where libcst kept it as written; a name it lists more keeps more.

Without a model (syntax newer than the running Python's) little is known of a file whose text spells
`__all__`: every name the text writes as a string literal of its own counts as listed (`Exports.lists`), and
none has entries, so nothing it may export is deleted, and an import a fix leaves unused still goes unless
its name is quoted; a file whose text does not spell `__all__` lists nothing.
"""

from __future__ import annotations

import ast
import re
import tokenize
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.analysis.planned import Located
from fsdp_unpatch.semantic.model import one_string_token
from fsdp_unpatch.semantic.text import NodeText

if TYPE_CHECKING:
    from fsdp_unpatch.semantic.model import SemanticModel

_HANDLERS = (ast.excepthandler, getattr(ast, "match_case", ast.excepthandler))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# One string literal, certainly (else its source is tokenized): a prefix, quotes, no quote or backslash inside.
_PLAIN_STRING = re.compile(r"[A-Za-z]{0,2}(?:\"[^\"'\\\r\n]*\"|'[^\"'\\\r\n]*')")
# The tokens a statement line starts after (or none: the first statement of the file).
_LINE_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING})
_LINE_END = frozenset({tokenize.NEWLINE, tokenize.ENDMARKER})
_NOT_CODE = frozenset({tokenize.COMMENT, tokenize.NL})


@dataclass(frozen=True)
class Entry:
    """What deleting one `__all__` entry of `name` removes: a list or tuple element (`kind` "element"), the
    statement line of an `__all__.append(...)` alone on it ("line"), or that call's small statement
    ("statement"): where libcst places it."""

    name: str
    kind: str
    at: Located


@dataclass(frozen=True)
class Exports:
    # The names `__all__` lists anywhere in the file; None: not known (no model of a text that spells `__all__`).
    names: Optional[frozenset[str]]
    entries: tuple[Entry, ...]  # at module level, in the order of the source
    text: str = ""  # without a model: the text, whose quoted names `__all__` may list

    def lists(self, name: str) -> bool:
        """Whether `__all__` may list `name`; when nothing is known, every name the text writes as a string
        literal of its own (an entry of `__all__` is one): listing a name keeps what it names, and listing
        no other keeps an import the fix leaves unused from staying behind to fail."""
        if self.names is not None:
            return name in self.names
        return re.search(r"""(["'])""" + re.escape(name) + r"\1", self.text) is not None


def exports(model: Optional[SemanticModel], text: str) -> Exports:
    """The `__all__` facts of the file `model` was built from (`text`); without a model, unknown if `text`
    spells `__all__` (NFKC too), else none."""
    if model is None or model.tree is None:
        spelled = "__all__" in text or (not text.isascii() and "__all__" in unicodedata.normalize("NFKC", text))
        return Exports(None, (), text) if spelled else Exports(frozenset(), ())
    reader = _Reader(text)
    reader.statements(model.tree.body, module_level=True)
    return Exports(frozenset(reader.names), tuple(reader.entries))


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.names: set[str] = set()
        self.entries: list[Entry] = []
        self._source: Optional[NodeText] = None
        self._tokens: Optional[list[tokenize.TokenInfo]] = None

    @property
    def source(self) -> NodeText:
        if self._source is None:
            self._source = NodeText(self.text)
        return self._source

    def statements(self, body: list[ast.stmt], module_level: bool) -> None:
        """Each statement of a block and of the blocks inside it, in the order of the source; `module_level`:
        outside every function and class (a `def`'s or a `class`'s body is not)."""
        for statement in body:
            self.statement(statement, module_level)
            inner = module_level and not isinstance(statement, _SCOPES)
            for block in _blocks(statement):
                self.statements(block, inner)

    def statement(self, node: ast.stmt, module_level: bool) -> None:
        """One statement's `__all__` names, if it adds any."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if _is_dunder_all(target):
                    self.read(node.value, module_level)
        elif isinstance(node, ast.AugAssign):
            if _is_dunder_all(node.target) and isinstance(node.op, ast.Add):
                self.read(node.value, module_level)
        elif isinstance(node, ast.AnnAssign):
            if _is_dunder_all(node.target) and node.value is not None:
                self.read(node.value, module_level)
        elif isinstance(node, ast.Expr):
            self.call(node, module_level)

    def call(self, statement: ast.Expr, module_level: bool) -> None:
        """`__all__.append("x")` or `__all__.extend([...])`: one argument (`*` or a keyword one too)."""
        call = statement.value
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            return
        if not _is_dunder_all(call.func.value) or call.func.attr not in ("append", "extend"):
            return
        if len(call.args) + len(call.keywords) != 1:
            return
        argument = call.args[0] if call.args else call.keywords[0].value
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if call.func.attr == "extend":
            self.read(argument, module_level)
            return
        name = self.literal(argument)
        if name is None:
            return
        self.names.add(name)
        if module_level:
            self.entries.append(self.statement_entry(name, statement))

    def read(self, value: ast.expr, module_level: bool) -> None:
        """The names of a list or tuple, each with its element as an entry at module level."""
        if not isinstance(value, (ast.List, ast.Tuple)):
            return
        for element in value.elts:
            name = self.literal(element)
            if name is None:
                continue
            self.names.add(name)
            if module_level:
                start, end = self.source.span(element)  # with the parentheses libcst's element holds
                self.entries.append(Entry(name, "element", _located(self.source, start, end)))

    def literal(self, node: ast.expr) -> Optional[str]:
        """The value of one string literal, not several side by side."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return None
        written = self.source.written(node)
        return node.value if _PLAIN_STRING.fullmatch(written) or one_string_token(written) else None

    def statement_entry(self, name: str, statement: ast.Expr) -> Entry:
        """The `.append` statement: its line when it is alone on a statement line (not after `;`, not followed
        by a statement, not the body of a compound statement on its header's line), else the small statement;
        both stand where the statement does."""
        source = self.source
        start = source.offset(statement.lineno, statement.col_offset)
        end = source.offset(statement.end_lineno, statement.end_col_offset)  # type: ignore[arg-type]
        return Entry(name, "line" if self.alone(start, end) else "statement", _located(source, start, end))

    def alone(self, start: int, end: int) -> bool:
        tokens = self.tokens()
        first = next((i for i, t in enumerate(tokens) if self.at(t.start) == start), None)
        last = next((i for i, t in enumerate(tokens) if self.at(t.end) == end), None)
        if first is None or last is None:
            return False  # not expected (ast parsed the text); the small statement goes, which empties a line alone
        if first > 0 and tokens[first - 1].type not in _LINE_START:
            return False  # after `;`, or a compound statement's `:`
        after = tokens[last + 1 :]
        if after and after[0].string == ";" and after[0].type == tokenize.OP:
            after = after[1:]
        return not after or after[0].type in _LINE_END

    def tokens(self) -> list[tokenize.TokenInfo]:
        """The file's tokens but comments and non-logical line ends (made for the first `.append` entry)."""
        if self._tokens is None:
            try:
                lines = iter(self.source.lines)  # as Python ends lines (`\r` too)
                tokens = tokenize.generate_tokens(lambda: next(lines, ""))
                self._tokens = [t for t in tokens if t.type not in _NOT_CODE]
            except (tokenize.TokenError, SyntaxError):
                self._tokens = []
        return self._tokens

    def at(self, position: tuple[int, int]) -> int:
        line, column = position
        return self.source.line_starts[line - 1] + column if line <= len(self.source.lines) else len(self.text)


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks of a statement, in the order of the source: its bodies, and its handlers' and cases' bodies."""
    for _, value in ast.iter_fields(statement):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, _HANDLERS):
                    yield item.body  # type: ignore[union-attr]
            if value and isinstance(value[0], ast.stmt):
                yield value


def _is_dunder_all(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "__all__"


def _located(source: NodeText, start: int, end: int) -> Located:
    """The place of the text from offset `start` to `end` (its end: after its last character, on that
    character's line, also at the end of a text without a last line end)."""
    (line, column), (end_line, last) = source.place(start), source.place(end - 1)
    return Located(line, column, end_line, last + 1)
