"""The facts of test modules that the test rules read (FSU302, FSU303, FSU305): what a test module, a test
function and a test class are, which statements assert that a removed patch is installed, which tests
exist only for removed functions and go (not those code that stays still names), and whether the module
has anything left once they are gone. Below the rules: each rule turns these facts into its findings
(`run/test_plans.py` runs them in order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence, TypeVar, Union

import libcst as cst

from fsdp_unpatch.analysis.blocks import body_statements
from fsdp_unpatch.analysis.patterns import is_docstring
from fsdp_unpatch.analysis.references import FileReferences, Reference

IDENTITY_ASSERT_METHODS = frozenset({"assertIs", "assertIsNot", "assertEqual", "assertNotEqual", "assertEquals"})
IDENTITY_OPERATORS = (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)

TestNode = Union[cst.FunctionDef, cst.ClassDef]
T = TypeVar("T")


@dataclass
class Assertion:
    statement: cst.CSTNode  # what the fix deletes: the line, or the small statement on a shared line
    report: cst.CSTNode
    references: list[Reference]


def _identity_operands(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assert):
        test = small.test
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            if isinstance(test.comparisons[0].operator, IDENTITY_OPERATORS):
                return [test.left, test.comparisons[0].comparator]
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if method in IDENTITY_ASSERT_METHODS:
            return [arg.value for arg in call.args[:2] if arg.keyword is None and not arg.star]
    return []


def identity_assertions(module: cst.Module, references: Iterable[Reference]) -> list[Assertion]:
    by_node = {id(r.node): r for r in references}
    found: list[Assertion] = []
    if not by_node:  # no operand can name a removed symbol: no walk of the module (most files linked)
        return found

    class _Visitor(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            for small in node.body:
                named = [by_node[id(o)] for o in _identity_operands(small) if id(o) in by_node]
                if named:
                    statement = node if len(node.body) == 1 else small
                    found.append(Assertion(statement, small, named))

    module.visit(_Visitor())
    return found


def _subtree_ids(node: cst.CSTNode) -> set[int]:
    found: set[int] = set()

    class _Walk(cst.CSTVisitor):
        def on_visit(self, child: cst.CSTNode) -> bool:
            found.add(id(child))
            return True

    node.visit(_Walk())
    return found


def _is_test_function(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.FunctionDef) and node.name.value.startswith("test")


def _test_methods(node: cst.ClassDef) -> list[cst.FunctionDef]:
    return [s for s in body_statements(node.body) if _is_test_function(s)]  # type: ignore[misc]


def _is_test_class(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.ClassDef)
        and (node.name.value.startswith("Test") or bool(node.bases))
        and bool(_test_methods(node))
    )


def _is_main_guard(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.If) or not isinstance(statement.test, cst.Comparison):
        return False
    sides = [statement.test.left, *(c.comparator for c in statement.test.comparisons)]
    return any(isinstance(s, cst.Name) and s.value == "__name__" for s in sides)


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom, cst.Pass)) for s in statement.body
    )


def _is_definition_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Assign, cst.AnnAssign, cst.Import, cst.ImportFrom, cst.Pass)) for s in statement.body
    )


def _is_guarded_import(statement: cst.CSTNode) -> bool:
    """`try: import x` / `except ImportError: x = None`."""
    if not isinstance(statement, cst.Try):
        return False
    blocks = [statement.body, *(h.body for h in statement.handlers)]
    return all(_is_definition_line(s) for block in blocks for s in body_statements(block))


def _left_over(statement: cst.CSTNode, dedicated: set[int]) -> bool:
    """Whether a top-level statement still matters once the dedicated tests are gone."""
    if id(statement) in dedicated:
        return False
    if isinstance(statement, cst.BaseStatement) and is_docstring(statement):
        return False
    if _is_definition_line(statement) or _is_main_guard(statement) or _is_guarded_import(statement):
        return False
    # Helpers serve the tests of the module; with the tests gone they serve nothing.
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and not (
        _is_test_function(statement) or _is_test_class(statement)
    ):
        return False
    return True


def _call_lines(module: cst.Module) -> dict[str, list[cst.SimpleStatementLine]]:
    """Lines that only call a function by name (`test_x()`), at top level or in the `__main__` guard: a test
    the fix deletes takes its calls with it."""
    blocks = [
        module.body,
        *(body_statements(s.body) for s in module.body if isinstance(s, cst.If) and _is_main_guard(s)),
    ]
    found: dict[str, list[cst.SimpleStatementLine]] = {}
    for block in blocks:
        for line in block:
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                small = line.body[0]
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    if isinstance(small.value.func, cst.Name):
                        found.setdefault(small.value.func.value, []).append(line)
    return found


def _not_named_elsewhere(
    module: cst.Module, wanted: list[tuple[TestNode, str]], calls: dict[str, list[cst.SimpleStatementLine]]
) -> list[tuple[TestNode, str]]:
    """The tests that can go: a top-level test still named by code that stays (a subclass `TestMore(TestX)`,
    a call inside an expression) would leave that code naming nothing, so it stays, and so, in turn, do the
    tests that code names. Plain calls (`calls`) go with their test."""
    top = {node.name.value for node, _ in wanted if node in module.body}
    if not top:
        return wanted
    call_funcs = {id(line.body[0].value.func) for lines in calls.values() for line in lines}  # type: ignore[attr-defined]
    definitions = {id(node.name) for node, _ in wanted}
    uses: list[cst.Name] = []

    class _Uses(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value in top and id(node) not in definitions and id(node) not in call_funcs:
                uses.append(node)

    module.visit(_Uses())
    kept = list(wanted)
    while True:
        gone: set[int] = set()
        for node, _ in kept:
            gone |= _subtree_ids(node)
        named = {use.value for use in uses if id(use) not in gone}
        left = [(node, what) for node, what in kept if not (node in module.body and node.name.value in named)]
        if len(left) == len(kept):
            return kept
        kept = left


@dataclass
class TestFacts:
    """What a file's tests are, for the removed functions the run names (`tests`: the module's top-level
    tests; `going`: each test that goes, its kind and the lines that call it; `module_left_empty`: every
    test goes and nothing else of the module matters)."""

    references: list[Reference]
    assertions: list[Assertion]
    tests: list[TestNode] = field(default_factory=list)
    going: list[tuple[TestNode, str, Sequence[cst.CSTNode]]] = field(default_factory=list)
    module_left_empty: bool = False

    def refs_in(self, node: cst.CSTNode) -> list[Reference]:
        return [r for r in self.references if any(s is node for s in r.scopes)]


class _Reader:
    def __init__(self, module: cst.Module, references: FileReferences, installer_calls: set[int]):
        self.module = module
        self.facts = TestFacts(references.references, identity_assertions(module, references.references))
        self.asserted = {id(r.node) for a in self.facts.assertions for r in a.references}
        self.assertion_statements = {id(a.statement) for a in self.facts.assertions}
        self.installer_calls = installer_calls

    def is_dedicated(self, test: cst.FunctionDef) -> bool:
        refs = self.facts.refs_in(test)
        if any(id(r.node) not in self.asserted for r in refs):
            return True  # it exercises a removed function
        if not any(id(r.node) in self.asserted for r in refs):
            return False
        # Nothing but checks that the patch is installed (and the installer's calls).
        return all(
            is_docstring(s)
            or id(s) in self.assertion_statements
            or id(s) in self.installer_calls
            or (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body))
            for s in body_statements(test.body)
        )

    def tests(self, used_elsewhere: bool) -> None:
        tests = self.facts.tests
        wanted: list[tuple[TestNode, str]] = []  # (test, kind): what the fix would delete
        for statement in self.module.body:
            if _is_test_function(statement):
                tests.append(statement)  # type: ignore[arg-type]
                if self.is_dedicated(statement):  # type: ignore[arg-type]
                    wanted.append((statement, "test"))  # type: ignore[arg-type]
            elif _is_test_class(statement):
                assert isinstance(statement, cst.ClassDef)
                tests.append(statement)
                methods = _test_methods(statement)
                chosen = [m for m in methods if self.is_dedicated(m)]
                if chosen and len(chosen) == len(methods):
                    wanted.append((statement, "test class"))
                else:
                    wanted += [(method, "test") for method in chosen]
        calls = _call_lines(self.module)
        dedicated: list[TestNode] = []
        for node, what in _not_named_elsewhere(self.module, wanted, calls):
            top_level_function = isinstance(node, cst.FunctionDef) and node in self.module.body
            self.facts.going.append((node, what, calls.get(node.name.value, ()) if top_level_function else ()))
            if node in self.module.body:
                dedicated.append(node)
        if not dedicated or len(dedicated) != len(tests) or used_elsewhere:
            return
        ids = {id(t) for t in dedicated}
        self.facts.module_left_empty = not any(_left_over(s, ids) for s in self.module.body)


def read_tests(
    module: cst.Module,
    references: FileReferences,
    *,
    test_module: bool,
    installer_calls: set[int],
    used_elsewhere: Callable[[], bool] = lambda: False,
) -> TestFacts:
    """The identity assertions of any file, and the tests that go (test modules only).

    `installer_calls`: ids of statements that call a removed installer."""
    reader = _Reader(module, references, installer_calls)
    if test_module and reader.facts.references:
        reader.tests(used_elsewhere())
    return reader.facts


def subtree_ids(node: cst.CSTNode) -> set[int]:
    """ids of `node` and every node inside it."""
    return _subtree_ids(node)


def inside(node: object, deleted: Iterable[tuple[cst.CSTNode, T]]) -> Optional[T]:
    """What deletes the container that takes `node` with it, if any."""
    for container, planned in deleted:
        if id(node) in _subtree_ids(container):
            return planned
    return None
