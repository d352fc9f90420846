"""One visit of a parsed module that records every fact the analysis needs.

The visitor only records; deciding what the facts mean is `plan.py`'s job.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from fsdp_unpatch.analysis.patterns import bind_imports, dotted_name, qualify, setattr_install
from fsdp_unpatch.analysis.registrations import REGISTRATION_CALLEES
from fsdp_unpatch.semantic.names import ImportTable


@dataclass
class RawInstall:
    """A statement that stores `value` into `owner.attribute` (assignment or setattr)."""

    removable: cst.CSTNode  # what to delete: the statement line, the small statement, or one AssignTarget
    report: cst.CSTNode  # where to report it
    owner: cst.BaseExpression  # `a.b` in `a.b.c = f`; the object in setattr
    attribute: str
    value: cst.BaseExpression
    function: Optional[cst.FunctionDef]  # innermost enclosing function, if any
    statement: Optional[cst.CSTNode] = None  # the whole statement, when `removable` is one of its targets
    via_setattr: bool = False

    @property
    def partial(self) -> bool:
        """One target of a chained assignment: deleting it leaves the value in use."""
        return isinstance(self.removable, cst.AssignTarget)


@dataclass
class RawCall:
    """A call that is a whole statement: `name(...)` or `mod.name(...)`."""

    statement: cst.CSTNode
    call: cst.Call
    function: Optional[cst.FunctionDef]


@dataclass
class Facts:
    table: ImportTable
    installs: list[RawInstall] = field(default_factory=list)
    calls: list[RawCall] = field(default_factory=list)
    # function name -> definitions, with the function enclosing each (None at module or class level)
    functions: dict[str, list[tuple[cst.FunctionDef, Optional[cst.FunctionDef]]]] = field(default_factory=dict)
    name_uses: Counter = field(default_factory=Counter)
    # `name = a.b.c` (a plain name or attribute chain), with the function it is bound in (None at module level).
    aliases: list[tuple[str, cst.BaseExpression, Optional[cst.FunctionDef]]] = field(default_factory=list)
    # Calls that may register a kernel or patch in a test (`torch.library.impl(...)`, `lib.impl(...)`,
    # `mock.patch(...)`, `monkeypatch.setattr(...)`): matched by the last name of the callee only.
    registrations: list[tuple[cst.Call, Optional[cst.FunctionDef]]] = field(default_factory=list)
    # Functions with a call decorator: (decorator call, decorated function).
    decorated: list[tuple[cst.Call, cst.FunctionDef]] = field(default_factory=list)
    # ids of functions defined directly in a class body (methods: called through objects, never by name).
    methods: set[int] = field(default_factory=set)


class NameCounter(cst.CSTVisitor):
    """Counts uses of names, leaving out the names that only bind or label something."""

    def __init__(self) -> None:
        self.name_uses: Counter = Counter()
        self._labels: set[int] = set()

    def _label(self, node: Optional[cst.CSTNode]) -> None:
        if node is not None:
            self._labels.add(id(node))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._labels:
            self.name_uses[node.value] += 1

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:  # subclasses may stop the walk
        self._label(node.attr)
        return None

    def visit_Arg(self, node: cst.Arg) -> None:
        self._label(node.keyword)

    def visit_Param(self, node: cst.Param) -> None:
        self._label(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        self._label(node.name)
        return None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._label(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        for name in _names_in(node.name):
            self._label(name)
        if node.asname is not None:
            self._label(node.asname.name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:  # subclasses may stop the walk
        if node.module is not None:
            for name in _names_in(node.module):
                self._label(name)
        return None


def _names_in(node: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, cst.Attribute):
        return _names_in(node.value) + [node.attr]
    return []


def count_names(nodes: list[cst.CSTNode]) -> Counter:
    counter = NameCounter()
    for node in nodes:
        node.visit(counter)
    return counter.name_uses


class Collector(NameCounter):
    def __init__(self, table: ImportTable) -> None:
        super().__init__()
        self.facts = Facts(table=table)
        self._functions: list[cst.FunctionDef] = []
        self._line: Optional[cst.SimpleStatementLine] = None
        self._class_bodies: list[cst.ClassDef] = []  # innermost last; only while directly in its body

    @property
    def _function(self) -> Optional[cst.FunctionDef]:
        return self._functions[-1] if self._functions else None

    # scopes -----------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        super().visit_FunctionDef(node)
        self.facts.functions.setdefault(node.name.value, []).append((node, self._function))
        if self._class_bodies and self._class_bodies[-1] is not None:
            self.facts.methods.add(id(node))
        self._class_bodies.append(None)  # type: ignore[arg-type]  # a def's body is no class body
        for decorator in node.decorators:
            if isinstance(decorator.decorator, cst.Call):
                self.facts.decorated.append((decorator.decorator, node))
        self._functions.append(node)
        return None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()
        self._class_bodies.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._class_bodies.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_bodies.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._line = node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._line = None

    # imports ----------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        bind_imports(self.facts.table, node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        super().visit_ImportFrom(node)
        bind_imports(self.facts.table, node)

    # statements -------------------------------------------------------------------------------
    def _statement(self, small: cst.BaseSmallStatement) -> cst.CSTNode:
        line = self._line
        if line is not None and len(line.body) == 1:
            return line
        return small

    def visit_Assign(self, node: cst.Assign) -> None:
        single = len(node.targets) == 1
        for assign_target in node.targets:
            target = assign_target.target
            if isinstance(target, cst.Attribute):
                self.facts.installs.append(
                    RawInstall(
                        removable=self._statement(node) if single else assign_target,
                        report=target,
                        owner=target.value,
                        attribute=target.attr.value,
                        value=node.value,
                        function=self._function,
                        statement=self._statement(node),
                    )
                )
            elif isinstance(target, cst.Name) and dotted_name(node.value) is not None:
                self.facts.aliases.append((target.value, node.value, self._function))

    def visit_Expr(self, node: cst.Expr) -> None:
        if not isinstance(node.value, cst.Call):
            return
        statement = self._statement(node)
        found = setattr_install(node.value)
        if found is not None:
            owner, attribute, value = found
            self.facts.installs.append(
                RawInstall(
                    removable=statement,
                    report=node.value,
                    owner=owner,
                    attribute=attribute,
                    value=value,
                    function=self._function,
                    via_setattr=True,
                )
            )
        else:
            self.facts.calls.append(RawCall(statement=statement, call=node.value, function=self._function))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = (
            func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        )
        if last in REGISTRATION_CALLEES:
            self.facts.registrations.append((node, self._function))


def collect(module: cst.Module, table: ImportTable) -> Facts:
    collector = Collector(table)
    module.visit(collector)
    facts = collector.facts
    facts.name_uses = collector.name_uses
    # A module-level function is named by its module from anywhere in the file.
    module_name = table.module
    for name, definitions in facts.functions.items():
        if module_name and name not in table.bindings and any(parent is None for _, parent in definitions):
            table.add_alias(name, f"{module_name}.{name}")
    # Simple aliases (`C = torch....._fsdp_collectives`, `orig = C.foreach_reduce`) resolve through imports.
    for local, value, _ in facts.aliases:
        if local in facts.table.bindings:
            continue
        qualified = qualify(facts.table, value)
        if qualified is not None and qualified.startswith("torch."):
            facts.table.add_alias(local, qualified)
    return facts
