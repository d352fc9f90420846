"""Overrides installed in shapes that no install site stands for (`collect.py` sees only `owner.attr = f`
and `setattr(owner, "attr", f)` on a plain name): several targets unpacked from one tuple, a store through
`vars(owner)` or `owner.__dict__`, an owner looked up at run time (`sys.modules[...]`,
`importlib.import_module(...)`, `getattr(owner, "name")`), a loop over (owner, name, function) rows that
calls `setattr`, and a decorator handed an FSDP2 owner and an attribute name.

The tool can neither prove nor delete such an override: it is reported for review (FSU101, and FSU105 for
the loop, whose `setattr` names its attribute at run time), and a direct install site of the same target is
not deleted either (`plan.py`, its install sites): the override would stay installed by these means.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional, Sequence

import libcst as cst

from fsdp_unpatch.analysis.subjects import Indirect
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.semantic.names import ImportTable, dotted_name, is_fsdp2_private, target_id

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.subjects import ModuleSubject

MOCK_ROOTS = ("unittest.mock.", "mock.", "pytest.")  # a test's patch decorator: FSU202 says it


def found_in(subject: ModuleSubject, catalog: Catalog) -> list[Indirect]:
    """What `find` gives for the subject's module, looked for once (the planner and two rules ask)."""
    if subject.indirect_installs is None:
        subject.indirect_installs = find(subject.module, subject.table, catalog)
    return subject.indirect_installs


def find(module: cst.Module, table: ImportTable, catalog: Catalog) -> list[Indirect]:
    """Every override of an FSDP2 internal the module installs in one of these shapes, in source order."""
    finder = _Finder(table, catalog)
    for statement in _statements(module):
        finder.visit(statement)
    return finder.found


def _statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The statements under `node`, nested ones too, without walking into expressions (the shapes are
    statements, or decorators of one): a full visit costs about as much as `collect` again."""
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            continue
        if isinstance(child, cst.SimpleStatementLine):
            yield from child.body
        elif isinstance(child, cst.BaseSmallStatement):
            yield child  # the body of a one-line suite (`for x in y: setattr(...)`)
        else:
            if isinstance(child, (cst.BaseCompoundStatement, cst.Decorator)):
                yield child
            yield from _statements(child)


class _Finder:
    """Each `visit_X` looks at one statement (or decorator) of kind X."""

    def __init__(self, table: ImportTable, catalog: Catalog) -> None:
        self.table = table
        self.catalog = catalog
        self.found: list[Indirect] = []

    def visit(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Expr):
            node = node.value
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is not None:
            method(node)

    # shapes ---------------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            stored = assign_target.target
            if isinstance(stored, (cst.Tuple, cst.List)):
                values = _elements(node.value)
                for index, element in enumerate(stored.elements):
                    value = values[index] if values is not None and len(values) == len(stored.elements) else None
                    if isinstance(element.value, cst.Attribute):
                        self._attribute(element.value, value, "unpacked from a tuple", always=True)
            elif isinstance(stored, cst.Attribute):
                self._attribute(stored, node.value, "on an owner looked up at run time", always=False)
            elif isinstance(stored, cst.Subscript):
                self._namespace_store(stored, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        """`setattr(<owner looked up at run time>, "name", f)` (on a plain name it is an install site)."""
        args = _plain_args(node)
        if _callee(node) != "setattr" or args is None or len(args) != 3 or dotted_name(args[0]) is not None:
            return
        name = _literal(args[1])
        owner = self.owner_of(args[0])
        if name is not None and owner is not None:
            self._add(node, f"{owner}.{name}", args[2], "by `setattr` on an owner looked up at run time")

    def visit_For(self, node: cst.For) -> None:
        """`for owner, name, fn in [(FSDPParamGroup, "x", f), ...]: setattr(owner, name, fn)`."""
        names = [e.value if isinstance(e, cst.Name) else None for e in _elements(node.target) or ()]
        rows = _elements(node.iter)
        if not names or rows is None:
            return
        for call in _setattr_calls(node.body):
            args = _plain_args(call)
            if args is None or len(args) != 3:
                continue
            for row in rows:
                row_values = _elements(row)
                if row_values is None or len(row_values) != len(names):
                    continue
                owner_node, name_node, value_node = (_pick(arg, names, row_values) for arg in args)
                owner = self.owner_of(owner_node) if owner_node is not None else None
                name = _literal(name_node) if name_node is not None else None
                if owner is not None and name is not None:
                    fixed_owner = dotted_name(args[0]) is not None and args[0] is owner_node
                    self._add(call, f"{owner}.{name}", value_node, "by `setattr` in a loop", True, fixed_owner)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """`@install_over(FSDPParamGroup, "finalize_backward")`: a decorator handed an owner and a name."""
        call = node.decorator
        if not isinstance(call, cst.Call):
            return
        callee = dotted_name(call.func)
        qualified = self.table.qualify_dotted(callee) if callee else ""
        if qualified.startswith(MOCK_ROOTS):
            return  # `mock.patch.object(...)`: a test patch, FSU202's
        values = [arg.value for arg in call.args if not arg.star]
        for owner_node, name_node in zip(values, values[1:]):
            owner, name = self.owner_of(owner_node), _literal(name_node)
            if owner is not None and name is not None:
                how = f"by decorator `@{callee or '...'}`"
                self._add(node, f"{owner}.{name}", None, how)

    # helpers --------------------------------------------------------------------------------------
    def _attribute(self, stored: cst.Attribute, value: Optional[cst.BaseExpression], how: str, *, always: bool) -> None:
        """`owner.attr = value`: reported when unpacked (`always`), else only when the owner is looked up
        at run time (on a plain name it is an install site)."""
        if not always and dotted_name(stored.value) is not None:
            return
        owner = self.owner_of(stored.value)
        if owner is not None:
            self._add(stored, f"{owner}.{stored.attr.value}", value, how)

    def _namespace_store(self, stored: cst.Subscript, value: cst.BaseExpression) -> None:
        """`vars(owner)["name"] = f`, `owner.__dict__["name"] = f`."""
        if len(stored.slice) != 1 or not isinstance(stored.slice[0].slice, cst.Index):
            return
        name = _literal(stored.slice[0].slice.value)
        namespace = stored.value
        owner_node: Optional[cst.BaseExpression] = None
        if isinstance(namespace, cst.Call) and _callee(namespace) == "vars":
            args = _plain_args(namespace)
            owner_node = args[0] if args is not None and len(args) == 1 else None
            how = "through `vars()`"
        elif isinstance(namespace, cst.Attribute) and namespace.attr.value == "__dict__":
            owner_node, how = namespace.value, "through `__dict__`"
        owner = self.owner_of(owner_node) if owner_node is not None else None
        if owner is not None and name is not None:
            self._add(stored, f"{owner}.{name}", value, how)

    def owner_of(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name an owner expression stands for: a plain name, or a module looked up at run
        time (`sys.modules["m"]`, `importlib.import_module("m")`, `getattr(owner, "name")`)."""
        name = dotted_name(node)
        if name is not None:
            return self.table.qualify_dotted(name)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            base = dotted_name(node.value)
            if base is not None and self.table.qualify_dotted(base) == "sys.modules":
                return _literal(node.slice[0].slice.value)
        if isinstance(node, cst.Call):
            args = _plain_args(node)
            callee = dotted_name(node.func)
            qualified = self.table.qualify_dotted(callee) if callee else None
            if qualified == "importlib.import_module" and args and len(args) == 1:
                return _literal(args[0])
            if callee == "getattr" and args is not None and len(args) == 2:
                owner, attribute = self.owner_of(args[0]), _literal(args[1])
                return f"{owner}.{attribute}" if owner is not None and attribute is not None else None
        return None

    def _add(
        self,
        node: cst.CSTNode,
        qualified: str,
        value: Optional[cst.BaseExpression],
        how: str,
        loop: bool = False,
        reported: bool = False,
    ) -> None:
        target = target_id(qualified, self.catalog)
        if target is None or not is_fsdp2_private(target, self.catalog):
            return
        releases = load_symbols().releases(target)
        if releases is not None and not releases:
            return  # a new attribute: nothing upstream is overridden
        if value is not None and self._restores(value, qualified, target):
            return
        self.found.append(Indirect(node, target, how, loop, reported))

    def _restores(self, value: cst.BaseExpression, qualified: str, target: str) -> bool:
        """The value is the saved original of the same target (`orig = FSDPParamGroup.x` ... `= orig`)."""
        name = dotted_name(value)
        if name is None:
            return False
        held = self.table.qualify_dotted(name)
        return held == qualified or target_id(held, self.catalog) == target


def _elements(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return [e.value for e in node.elements]
    return None


def _plain_args(call: cst.Call) -> Optional[list[cst.BaseExpression]]:
    if any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    return [arg.value for arg in call.args]


def _callee(call: cst.Call) -> Optional[str]:
    return call.func.value if isinstance(call.func, cst.Name) else None


def _literal(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _pick(arg: cst.BaseExpression, names: Sequence[Optional[str]], row: Sequence[cst.BaseExpression]):
    """A `setattr` argument in one row: a loop variable stands for the row's value at its place."""
    if isinstance(arg, cst.Name) and arg.value in names:
        return row[names.index(arg.value)]
    return arg


def _setattr_calls(body: cst.BaseSuite) -> Iterator[cst.Call]:
    """The `setattr(...)` calls that are statements of the loop's own body."""
    if not isinstance(body, cst.IndentedBlock):
        statements: Sequence[cst.BaseSmallStatement] = body.body if isinstance(body, cst.SimpleStatementSuite) else ()
    else:
        statements = [s for line in body.body if isinstance(line, cst.SimpleStatementLine) for s in line.body]
    for statement in statements:
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
            if _callee(statement.value) == "setattr":
                yield statement.value
