"""The facts of one file read with CPython's `ast` (one `ast.parse`, no libcst): the functions and their
scopes, and the install sites, each at the position libcst reports for it.

Positions are as libcst gives them: lines from 1, columns from 0 counted in characters (ast counts its
columns in UTF-8 bytes). What this model holds equals what `analysis/collect.py` records from the libcst
tree for the same facts, in the same order (a test compares the two on every rule case, fixture and
example). The planner judges its install sites on this model (`analysis/site_judging.py`) and places nodes
with its statement lines (`analysis/positions.py`).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

from fsdp_unpatch.project.bindings import counts
from fsdp_unpatch.semantic.function_source import FunctionSources
from fsdp_unpatch.semantic.imports import add_aliases, dotted, read_imports
from fsdp_unpatch.semantic.names import ImportTable
from fsdp_unpatch.semantic.text import dedent_lines, physical_lines

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))
_DEF = re.compile(r"(?:async[ \t\f]+)?def[ \t\f]+")


@dataclass(frozen=True)
class Span:
    start_line: int
    start_column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Function:
    """A `def`: its name, where it stands (from `def`, decorators left out, as libcst places it), and the
    index of the function it is defined in (None at module level or in a module-level class)."""

    name: str
    span: Span
    parent: Optional[int]
    method: bool  # defined directly in a class body
    name_at: Optional[Span]  # the name after `def` (None if a line continuation splits the header there)
    node: FunctionNode = field(compare=False, repr=False)
    sources: FunctionSources = field(compare=False, repr=False)

    @functools.cached_property
    def _source(self) -> tuple[str, int]:
        return self.sources.of(self.node)  # sliced on first need: most functions are never compared

    @property
    def source(self) -> str:
        """As libcst's `code_for_node` gives it (`function_source.py`)."""
        return self._source[0]

    @property
    def first_line(self) -> int:
        """The file line the fingerprint comparison counts its differences from."""
        return self._source[1]


@dataclass(frozen=True)
class InstallSite:
    """A statement that stores `value` into `owner.attribute`: an assignment target, or `setattr(owner,
    "attribute", value)` with a string literal."""

    owner: str  # the owner's source
    owner_name: Optional[str]  # the owner as a dotted name (`a.b`), when it is one
    attribute: str
    value: str  # the stored expression's source
    value_name: Optional[str]  # the stored name, when the value is a plain name
    value_is_call: bool
    text: str  # the reported node's source (the target, or the setattr call)
    report: Span  # the assignment target, or the setattr call
    # The stored expression, without the parentheses around it, as libcst places it; None for a tuple or a
    # generator expression (ast's place includes their own parentheses, libcst's does not).
    value_at: Optional[Span]
    function: Optional[int]  # the innermost enclosing function's index
    via_setattr: bool = False
    partial: bool = False  # one target of a chained assignment (`a.x = b.y = f`)
    value_node: Optional[ast.expr] = field(default=None, compare=False, repr=False)  # what scoping reads


@dataclass
class SemanticModel:
    table: ImportTable
    functions: list[Function] = field(default_factory=list)
    installs: list[InstallSite] = field(default_factory=list)
    # `name = a.b.c` (a plain name or attribute chain), with the function it is bound in (None at module level).
    aliases: list[tuple[str, str, Optional[int]]] = field(default_factory=list)
    alias_values: list[Span] = field(default_factory=list)  # where each alias's value stands, as libcst places it
    # Names bound at module level other than by imports, and how often (`project/bindings.py`, `counts`).
    module_bindings: Counter = field(default_factory=Counter)
    has_fallbacks: bool = False  # a `try` at module level (`analysis/fallbacks.py` reads those)
    # The line of each top-level statement's first token (`def`/`class` for a decorated one): where the
    # libcst nodes inside it stand (`analysis/positions.py`).
    statement_lines: list[int] = field(default_factory=list)
    # What the restore pairing reads (`ast_scoping.py`), as `collect.py` records it: `name = call(...)` (the
    # last one in the file wins), and each call decorator with the index of the function it decorates.
    call_bindings: dict[str, ast.Call] = field(default_factory=dict)
    decorated: list[tuple[ast.Call, int]] = field(default_factory=list)
    tree: Optional[ast.Module] = field(default=None, compare=False, repr=False)  # for the census, on need


def build(
    text: str, module: Optional[str] = None, is_package: bool = False, linked: Optional[Mapping[str, str]] = None
) -> SemanticModel:
    """The model of a module's source (a `SyntaxError` for text CPython does not parse); `module`,
    `is_package` and `linked` as for `ImportTable`."""
    return _Builder(text, ImportTable(module, is_package, linked)).build()


class _Builder(ast.NodeVisitor):
    def __init__(self, text: str, table: ImportTable) -> None:
        self.text = text
        self.lines = physical_lines(text)
        self.line_starts = [0]
        for line in self.lines:
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.model = SemanticModel(table)
        self.functions: list[int] = []  # indices of the enclosing functions, innermost last
        self.class_body = False  # directly in a class body

    def build(self) -> SemanticModel:
        tree = ast.parse(self.text)
        self.sources = FunctionSources(self.text, tree)
        self.model.tree = tree
        read_imports(tree, self.model.table)
        self.model.module_bindings = counts(tree.body)
        self.model.has_fallbacks = any(isinstance(statement, _TRY) for statement in tree.body)
        self.model.statement_lines = [statement.lineno for statement in tree.body]
        self.visit(tree)
        module_functions = [f.name for f in self.model.functions if f.parent is None]
        add_aliases(self.model.table, module_functions, [(local, value) for local, value, _ in self.model.aliases])
        return self.model

    # positions ------------------------------------------------------------------------------------
    def column(self, line: int, byte_offset: int) -> int:
        """ast's column (UTF-8 bytes) as characters."""
        return len(self.lines[line - 1].encode("utf-8")[:byte_offset].decode("utf-8"))

    def span(self, node: ast.AST) -> Span:
        return Span(
            node.lineno,  # type: ignore[attr-defined]
            self.column(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            node.end_lineno,  # type: ignore[attr-defined]
            self.column(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def name_span(self, node: FunctionNode) -> Optional[Span]:
        line = self.lines[node.lineno - 1]
        header = _DEF.match(line, self.column(node.lineno, node.col_offset))
        if header is None or not line.startswith(node.name, header.end()):
            return None
        return Span(node.lineno, header.end(), node.lineno, header.end() + len(node.name))

    def value_span(self, node: ast.AST) -> Optional[Span]:
        return None if isinstance(node, (ast.Tuple, ast.GeneratorExp)) else self.span(node)

    def offset(self, line: int, byte_offset: int) -> int:
        """The character offset in the text of an ast position."""
        return self.line_starts[line - 1] + self.column(line, byte_offset)

    def source(self, node: ast.AST, statement: ast.stmt) -> str:
        """The node's source as libcst gives it: with the parentheses around it (`(f)`), which ast leaves out,
        and its continuation lines without the indentation of the block `statement` is in."""
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        while True:
            before = _skip_space(self.text, start - 1, -1)
            after = _skip_space(self.text, end, 1)
            if before < 0 or after >= len(self.text) or self.text[before] != "(" or self.text[after] != ")":
                break
            start, end = before, after + 1
        text = self.text[start:end]
        if "\n" not in text:
            return text
        line = self.lines[statement.lineno - 1]
        return dedent_lines(text, line[: len(line) - len(line.lstrip(" \t"))], first=False)

    @property
    def function(self) -> Optional[int]:
        return self.functions[-1] if self.functions else None

    # scopes ---------------------------------------------------------------------------------------
    def visit_function(self, node: FunctionNode) -> None:
        index = len(self.model.functions)
        self.model.functions.append(
            Function(
                node.name, self.span(node), self.function, self.class_body, self.name_span(node), node, self.sources
            )
        )
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call):
                self.model.decorated.append((decorator, index))
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.functions.append(index)
        in_class, self.class_body = self.class_body, False
        for statement in node.body:
            self.visit(statement)
        self.class_body = in_class
        self.functions.pop()

    visit_FunctionDef = visit_function
    visit_AsyncFunctionDef = visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(child)
        in_class, self.class_body = self.class_body, True
        for statement in node.body:
            self.visit(statement)
        self.class_body = in_class

    # install sites --------------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        partial = len(node.targets) > 1
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                self.model.installs.append(
                    InstallSite(
                        owner=self.source(target.value, node),
                        owner_name=dotted(target.value),
                        attribute=target.attr,
                        value=self.source(node.value, node),
                        value_name=_plain_name(node.value),
                        value_is_call=isinstance(node.value, ast.Call),
                        text=self.source(target, node),
                        report=self.span(target),
                        value_at=self.value_span(node.value),
                        function=self.function,
                        partial=partial,
                        value_node=node.value,
                    )
                )
            elif isinstance(target, ast.Name) and dotted(node.value) is not None:
                self.model.aliases.append((target.id, dotted(node.value) or "", self.function))
                self.model.alias_values.append(self.span(node.value))
            elif isinstance(target, ast.Name) and target.id != "__all__" and isinstance(node.value, ast.Call):
                self.model.call_bindings[target.id] = node.value
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call) and self.is_setattr(call):
            owner, name, value = call.args
            assert isinstance(name, ast.Constant) and isinstance(name.value, str)  # `is_setattr`
            self.model.installs.append(
                InstallSite(
                    owner=self.source(owner, node),
                    owner_name=dotted(owner),
                    attribute=name.value,
                    value=self.source(value, node),
                    value_name=_plain_name(value),
                    value_is_call=isinstance(value, ast.Call),
                    text=self.source(call, node),
                    report=self.span(call),
                    value_at=self.value_span(value),
                    function=self.function,
                    via_setattr=True,
                    value_node=value,
                )
            )
        self.generic_visit(node)

    def is_setattr(self, call: ast.Call) -> bool:
        """`setattr(obj, "name", value)`: three positional arguments, the name one string literal (not an
        f-string, not literals written side by side)."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "setattr"):
            return False
        if len(call.args) != 3 or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        name = call.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return False
        return one_string_token(ast.get_source_segment(self.text, name) or "")


def _skip_space(text: str, at: int, step: int) -> int:
    """The first index from `at` (going by `step`) that is not white space or a line continuation."""
    while 0 <= at < len(text) and (text[at] in " \t\r\n\f" or text[at] == "\\"):
        at += step
    return at


def _plain_name(node: ast.AST) -> Optional[str]:
    """The name a plain name spells (`None`, `True` and `False` are names to libcst)."""
    return None if isinstance(node, ast.Attribute) else dotted(node)


def one_string_token(source: str) -> bool:
    """`source` is one string literal (libcst's SimpleString), not several side by side."""
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.COMMENT)
        ]
    except (tokenize.TokenError, SyntaxError):
        return False
    return len(tokens) == 1 and tokens[0].type == tokenize.STRING
