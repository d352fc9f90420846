"""Overrides installed in shapes that no install site stands for (`collect.py` sees only `owner.attr = f`
and `setattr(owner, "attr", f)` on a plain name): several targets unpacked from one tuple, a store through
`vars(owner)` or `owner.__dict__`, an owner looked up at run time (`sys.modules[...]`,
`importlib.import_module(...)`, `getattr(owner, "name")`), a loop over (owner, name, function) rows that
calls `setattr`, and a decorator handed an FSDP2 owner and an attribute name.

The tool can neither prove nor delete such an override: it is reported for review (FSU101, and FSU105 for
the loop, whose `setattr` names its attribute at run time), and a direct install site of the same target is
not deleted either (`plan.py`, its install sites): the override would stay installed by these means.

Read from the `ast` model of the parsed text (issue 32 item 4: libcst only writes): each override stands where
libcst places what it points at (`planned.Located`) and is quoted as libcst's `code_for_node` gives it
(`semantic/text.py`, `NodeText`). A file the model cannot be built for has none; none of its sites is judged
either (`site_judging.Unjudged`), so nothing of it is deleted.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

from fsdp_unpatch.analysis.planned import Located
from fsdp_unpatch.analysis.registrations import literal
from fsdp_unpatch.analysis.subjects import Indirect
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.semantic.imports import dotted
from fsdp_unpatch.semantic.names import ImportTable, is_fsdp2_private, target_id
from fsdp_unpatch.semantic.text import NodeText, dedent_lines

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.subjects import ModuleSubject

MOCK_ROOTS = ("unittest.mock.", "mock.", "pytest.")  # a test's patch decorator: FSU202 says it
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # in libcst's order of a statement's children


def found_in(subject: ModuleSubject, catalog: Catalog) -> list[Indirect]:
    """What `find` gives for the subject's module, looked for once (the planner and two rules ask)."""
    if subject.indirect_installs is None:
        model = subject.model
        tree = model.tree if model is not None else None
        subject.indirect_installs = [] if tree is None else find(tree, subject.node_text, subject.table, catalog)
    return subject.indirect_installs


def find(tree: ast.Module, text: NodeText, table: ImportTable, catalog: Catalog) -> list[Indirect]:
    """Every override of an FSDP2 internal the module (parsed from `text`) installs in one of these shapes, in
    source order; names resolve through `table`."""
    finder = _Finder(text, table, catalog)
    for statement, indentation in _statements(tree.body, finder.text):
        finder.visit(statement, indentation)
    return finder.found


def _statements(body: Sequence[ast.AST], text: NodeText) -> Iterator[tuple[ast.AST, str]]:
    """The statements of `body`, nested ones too, each before what it holds, and the decorators of a definition
    before its body (the shapes are statements, or decorators of one), each with the indentation of its line."""
    for statement in body:
        if isinstance(statement, ast.ExceptHandler) or type(statement).__name__ == "match_case":
            yield from _statements(statement.body, text)  # type: ignore[attr-defined]
            continue
        indentation = text.indentation(statement.lineno)  # type: ignore[attr-defined]
        yield statement, indentation
        if isinstance(statement, _DEFINITIONS):
            decorators = statement.decorator_list
            for index, decorator in enumerate(decorators):
                yield _Decorated(decorator, decorators[index - 1] if index else None), indentation
        for field in _BLOCKS:
            yield from _statements(getattr(statement, field, ()), text)


class _Decorated(ast.AST):
    """A decorator as a statement of its own (libcst's `Decorator`): the expression after `@`, and the decorator
    above it (None for the first: the lines above that are the definition's)."""

    def __init__(self, expression: ast.expr, above: Optional[ast.expr]) -> None:
        super().__init__()
        self.expression = expression
        self.above = above


class _Finder:
    """Each `visit_X` looks at one statement (or decorator) of kind X."""

    def __init__(self, text: NodeText, table: ImportTable, catalog: Catalog) -> None:
        self.text = text
        self.table = table
        self.catalog = catalog
        self.found: list[Indirect] = []
        self.indentation = ""

    def visit(self, node: ast.AST, indentation: str) -> None:
        self.indentation = indentation
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.visit_call(node.value)
        elif isinstance(node, ast.Assign):
            self.visit_assign(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.visit_for(node)
        elif isinstance(node, _Decorated):
            self.visit_decorator(node)

    # shapes ---------------------------------------------------------------------------------------
    def visit_assign(self, node: ast.Assign) -> None:
        for stored in node.targets:
            if isinstance(stored, (ast.Tuple, ast.List)):
                values = _elements(node.value)
                for index, element in enumerate(stored.elts):
                    element = element.value if isinstance(element, ast.Starred) else element
                    value = values[index] if values is not None and len(values) == len(stored.elts) else None
                    if isinstance(element, ast.Attribute):
                        self._attribute(element, value, "unpacked from a tuple", always=True)
            elif isinstance(stored, ast.Attribute):
                self._attribute(stored, node.value, "on an owner looked up at run time", always=False)
            elif isinstance(stored, ast.Subscript):
                self._namespace_store(stored, node.value)

    def visit_call(self, node: ast.Call) -> None:
        """`setattr(<owner looked up at run time>, "name", f)` (on a plain name it is an install site)."""
        args = _plain_args(node)
        if _callee(node) != "setattr" or args is None or len(args) != 3 or dotted(args[0]) is not None:
            return
        name = literal(args[1])
        owner = self.owner_of(args[0])
        if name is not None and owner is not None:
            self._add(node, f"{owner}.{name}", args[2], "by `setattr` on an owner looked up at run time")

    def visit_for(self, node: Union[ast.For, ast.AsyncFor]) -> None:
        """`for owner, name, fn in [(FSDPParamGroup, "x", f), ...]: setattr(owner, name, fn)`."""
        names = [e.id if isinstance(e, ast.Name) else None for e in _elements(node.target) or ()]
        rows = _elements(node.iter)
        if not names or rows is None:
            return
        for call, statement in _setattr_calls(node.body):
            indentation = self.text.indentation(statement.lineno)
            args = _plain_args(call)
            if args is None or len(args) != 3:
                continue
            for row in rows:
                row_values = _elements(row)
                if row_values is None or len(row_values) != len(names):
                    continue
                owner_node, name_node, value_node = (_pick(arg, names, row_values) for arg in args)
                owner = self.owner_of(owner_node)
                name = literal(name_node)
                if owner is not None and name is not None:
                    fixed_owner = dotted(args[0]) is not None and args[0] is owner_node
                    spelled = tuple(self.text.code(arg, indentation) for arg in args[:2])
                    how = "by `setattr` in a loop"
                    self._add(call, f"{owner}.{name}", value_node, how, True, fixed_owner, spelled, indentation)

    def visit_decorator(self, node: _Decorated) -> None:
        """`@install_over(FSDPParamGroup, "finalize_backward")`: a decorator handed an owner and a name."""
        call = node.expression
        if not isinstance(call, ast.Call):
            return
        callee = dotted(call.func)
        qualified = self.table.qualify_dotted(callee) if callee else ""
        if qualified.startswith(MOCK_ROOTS):
            return  # `mock.patch.object(...)`: a test patch, FSU202's
        # what libcst's `arg.value`s are, in the order of the source: positional and keyword alike, no `*`/`**`
        passed = [a for a in call.args if not isinstance(a, ast.Starred)] + [k for k in call.keywords if k.arg]
        passed.sort(key=lambda a: (a.lineno, a.col_offset))
        values = [a.value if isinstance(a, ast.keyword) else a for a in passed]
        for owner_node, name_node in zip(values, values[1:]):
            owner, name = self.owner_of(owner_node), literal(name_node)
            if owner is not None and name is not None:
                self._add(node, f"{owner}.{name}", None, f"by decorator `@{callee or '...'}`")

    # helpers --------------------------------------------------------------------------------------
    def _attribute(self, stored: ast.Attribute, value: Optional[ast.expr], how: str, *, always: bool) -> None:
        """`owner.attr = value`: reported when unpacked (`always`), else only when the owner is looked up
        at run time (on a plain name it is an install site)."""
        if not always and dotted(stored.value) is not None:
            return
        owner = self.owner_of(stored.value)
        if owner is not None:
            self._add(stored, f"{owner}.{stored.attr}", value, how)

    def _namespace_store(self, stored: ast.Subscript, value: ast.expr) -> None:
        """`vars(owner)["name"] = f`, `owner.__dict__["name"] = f`."""
        name = literal(stored.slice)
        namespace = stored.value
        owner_node: Optional[ast.expr] = None
        if isinstance(namespace, ast.Call) and _callee(namespace) == "vars":
            args = _plain_args(namespace)
            owner_node = args[0] if args is not None and len(args) == 1 else None
            how = "through `vars()`"
        elif isinstance(namespace, ast.Attribute) and namespace.attr == "__dict__":
            owner_node, how = namespace.value, "through `__dict__`"
        owner = self.owner_of(owner_node)
        if owner is not None and name is not None:
            self._add(stored, f"{owner}.{name}", value, how)

    def owner_of(self, node: Optional[ast.expr]) -> Optional[str]:
        """The qualified name an owner expression stands for: a plain name, or a module looked up at run
        time (`sys.modules["m"]`, `importlib.import_module("m")`, `getattr(owner, "name")`), or an attribute
        of one (`sys.modules["m"].FSDPParamGroup`)."""
        if node is None:
            return None
        name = dotted(node)
        if name is not None:
            return self.table.qualify_dotted(name)
        if isinstance(node, ast.Attribute):  # `sys.modules["m"].FSDPParamGroup`: an attribute of such an owner
            owner = self.owner_of(node.value)
            return f"{owner}.{node.attr}" if owner is not None else None
        if isinstance(node, ast.Subscript):
            base = dotted(node.value)
            if base is not None and self.table.qualify_dotted(base) == "sys.modules":
                return literal(node.slice)
        if isinstance(node, ast.Call):
            args = _plain_args(node)
            callee = dotted(node.func)
            qualified = self.table.qualify_dotted(callee) if callee else None
            if qualified == "importlib.import_module" and args and len(args) == 1:
                return literal(args[0])
            if callee == "getattr" and args is not None and len(args) == 2:
                owner, attribute = self.owner_of(args[0]), literal(args[1])
                return f"{owner}.{attribute}" if owner is not None and attribute is not None else None
        return None

    def _add(
        self,
        node: Union[ast.expr, _Decorated],
        qualified: str,
        value: Optional[ast.expr],
        how: str,
        loop: bool = False,
        reported: bool = False,
        arguments: tuple[str, ...] = (),
        indentation: Optional[str] = None,  # of the statement `node` is in, when not the one visited
    ) -> None:
        target = target_id(qualified, self.catalog)
        if target is None or not is_fsdp2_private(target, self.catalog):
            return
        releases = load_symbols().releases(target)
        if releases is not None and not releases:
            return  # a new attribute: nothing upstream is overridden
        if value is not None and self._restores(value, qualified, target):
            return
        indentation = self.indentation if indentation is None else indentation
        at, code = self._decorator(node) if isinstance(node, _Decorated) else self._expression(node, indentation)
        self.found.append(Indirect(at, code, target, how, loop, reported, arguments))

    def _restores(self, value: ast.expr, qualified: str, target: str) -> bool:
        """The value is the saved original of the same target (`orig = FSDPParamGroup.x` ... `= orig`)."""
        name = dotted(value)
        if name is None:
            return False
        held = self.table.qualify_dotted(name)
        return held == qualified or target_id(held, self.catalog) == target

    def _expression(self, node: ast.expr, indentation: str) -> tuple[Located, str]:
        line, column = self.text.start(node)
        end = self.text.column(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
        return Located(line, column, node.end_lineno, end), self.text.code(node, indentation)  # type: ignore[arg-type]

    def _decorator(self, node: _Decorated) -> tuple[Located, str]:
        """From its `@` to the end of its expression (its parentheses too), as libcst places a `Decorator`;
        quoted as libcst's code of one: the comment lines between it and the decorator above, then the rest of
        its last line (a comment)."""
        text = self.text
        start, end = text.span(node.expression)
        at = text.text.rindex("@", 0, start)
        (line, column), (end_line, end_column) = text.place(at), text.place(end)
        # placed only now, for a decorator reported (placing one reads the file's parentheses: a tokenize)
        after = text.place(text.span(node.above)[1])[0] if node.above is not None else None
        above = "".join(text.lines[after : line - 1]) if after is not None else ""
        rest = text.lines[end_line - 1][end_column:]
        code = dedent_lines(above + text.text[at:end] + rest, self.indentation)
        return Located(line, column, end_line, end_column), code


def _elements(node: ast.expr) -> Optional[list[ast.expr]]:
    if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return list(node.elts)
    return None


def _plain_args(call: ast.Call) -> Optional[list[ast.expr]]:
    if call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    return list(call.args)


def _callee(call: ast.Call) -> Optional[str]:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _pick(arg: ast.expr, names: Sequence[Optional[str]], row: Sequence[ast.expr]) -> ast.expr:
    """A `setattr` argument in one row: a loop variable stands for the row's value at its place."""
    if isinstance(arg, ast.Name) and arg.id in names:
        return row[names.index(arg.id)]
    return arg


def _setattr_calls(body: Sequence[ast.stmt]) -> Iterator[tuple[ast.Call, ast.stmt]]:
    """The `setattr(...)` calls that are statements of the loop's own body, each with its statement."""
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            if _callee(statement.value) == "setattr":
                yield statement.value, statement
