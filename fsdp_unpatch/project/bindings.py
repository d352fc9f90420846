"""What a module binds at top level: every binding of every name it may make when it runs (its census), and
the views of it the rest of the tool reads. The one walk of a module's top level (`tests/test_layout.py`).

Every way a module binds a global name counts, at any depth of `if`/`try`/`with`/`for`/`while`/`match` at
module level: imports anywhere in those blocks, assignments (augmented and annotated ones too), a walrus,
`for` and `with` targets, `except ... as`, `del`, `def` and `class`, match captures, `type` aliases,
`globals()["name"] = ...`; and in any function or class that declares the name `global`. A star import,
`globals()` used otherwise and `exec` may bind any name (`dynamic`).

The views: `census` (each binding with its kind, line and whether it always runs: a copy's free name is
proven to be its import only when that is the name's sole binding, `fingerprint/scope.py`); `bindings` (the
names, and whether the module may bind names no statement spells: FSU306 and the import safety net); `counts`
(how often `def`, `class` and assignments bind each name: a replacement bound twice is not proven). Each
takes the statements one at a time, so a caller may hand over a module read a statement at a time.

Stdlib only (and `project/module_names.py`, for relative imports), Python >= 3.9.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional

from fsdp_unpatch.project.module_names import resolve_relative

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))
_BUILTINS_MODULES = ("builtins", "__builtins__")
# Calls that may bind any global name (at module level `vars()` and `locals()` are `globals()`).
_DYNAMIC = frozenset({"exec", "globals", "vars", "locals"})


@dataclass(frozen=True)
class Binding:
    kind: str  # "import", "def", "class", "assignment", "for", "with", "except", "del", "walrus", "global", ...
    line: int
    qualified: Optional[str] = None  # an import's: what it binds
    plain: bool = False  # always runs: at module level, through `try` bodies only
    fallback: bool = False  # in an `except` handler of a top-level `try` (`analysis/fallbacks.py` may rule it out)


@dataclass(frozen=True)
class Census:
    names: Mapping[str, tuple[Binding, ...]] = field(default_factory=dict)
    dynamic: str = ""  # why any name may be bound ("`from x import *` at line 3"), or ""
    future_annotations: bool = False  # `from __future__ import annotations`: annotations are never evaluated


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


class _Walker:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.found: dict[str, list[Binding]] = {}
        self.dynamic = ""
        self.future = False
        self.star = False  # `from x import *`: what it binds is another module's business
        self.modules = False  # `sys.modules[...]` read or written: the module may be set up from outside

    def bind(self, name: str, binding: Binding) -> None:
        self.found.setdefault(name, []).append(binding)

    def set_dynamic(self, why: str) -> None:
        self.dynamic = self.dynamic or why

    # expressions: a walrus binds in the module (also inside a comprehension), `globals()` and `exec` may bind
    def expression(self, node: Optional[ast.AST], plain: bool, fallback: bool, module_level: bool = True) -> None:
        if node is None:
            return
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.NamedExpr) and isinstance(item.target, ast.Name) and module_level:
                self.bind(item.target.id, Binding("walrus", item.lineno, plain=False, fallback=fallback))
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id in _DYNAMIC:
                self.set_dynamic(f"`{item.func.id}()` at line {item.lineno}")
            if isinstance(item, ast.Attribute) and item.attr == "modules":
                self.modules = True
            if isinstance(item, ast.Lambda):
                continue
            stack.extend(ast.iter_child_nodes(item))

    def targets(self, node: ast.AST, kind: str, line: int, plain: bool, fallback: bool) -> None:
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Name):
            self.bind(node.id, Binding(kind, line, plain=plain, fallback=fallback))
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.targets(element, kind, line, plain, fallback)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in _BUILTINS_MODULES:
                self.bind(node.attr, Binding("builtins", line, plain=False, fallback=fallback))
            self.expression(node.value, plain, fallback, True)
        elif isinstance(node, ast.Subscript):
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "globals":
                key = node.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and not call.args:
                    self.bind(key.value, Binding("globals", line, plain=False, fallback=fallback))
                else:
                    self.set_dynamic(f"`globals()[...]` at line {line}")
            else:
                self.expression(node, plain, fallback, True)

    # statements at module level ------------------------------------------------------------------
    def block(self, statements: list, plain: bool, fallback: bool, top: bool) -> None:
        for statement in statements:
            self.statement(statement, plain, fallback, top)

    def statement(self, s: ast.stmt, plain: bool, fallback: bool, top: bool) -> None:
        line = s.lineno
        if isinstance(s, ast.Import):
            for alias in s.names:
                local = alias.asname or alias.name.split(".")[0]
                qualified = alias.name if alias.asname else local
                self.bind(local, Binding("import", line, qualified, plain, fallback))
        elif isinstance(s, ast.ImportFrom):
            base = resolve_relative(self.module, self.is_package, s.level, s.module or "")
            for alias in s.names:
                if alias.name == "*":
                    self.star = True
                    self.set_dynamic(f"`from {'.' * s.level}{s.module or ''} import *` at line {line}")
                    continue
                if base == "__future__" and alias.name == "annotations":
                    self.future = True
                full = None if base is None else (f"{base}.{alias.name}" if base else alias.name)
                self.bind(alias.asname or alias.name, Binding("import", line, full, plain, fallback))
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for expression in [*s.decorator_list, *getattr(s, "bases", []), *getattr(s, "keywords", [])]:
                self.expression(expression, plain, fallback, True)
            if not isinstance(s, ast.ClassDef):
                self.expression(s.args, plain, fallback, True)
                self.expression(s.returns, plain, fallback, True)
            self.bind(s.name, Binding("class" if isinstance(s, ast.ClassDef) else "def", line, None, plain, fallback))
            self.inner_scope(s.body, fallback)
        elif isinstance(s, ast.Assign):
            self.expression(s.value, plain, fallback, True)
            value = _dotted(s.value)
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and value is not None:
                self.bind(s.targets[0].id, Binding("alias", line, value, plain, fallback))
            else:
                for target in s.targets:
                    self.targets(target, "assignment", line, plain, fallback)
        elif isinstance(s, ast.AugAssign):
            self.expression(s.value, plain, fallback, True)
            self.targets(s.target, "augmented assignment", line, plain, fallback)
        elif isinstance(s, ast.AnnAssign):
            self.expression(s.annotation, plain, fallback, True)
            if s.value is not None:
                self.expression(s.value, plain, fallback, True)
                self.targets(s.target, "annotated assignment", line, plain, fallback)
        elif isinstance(s, ast.Delete):
            for target in s.targets:
                self.targets(target, "del", line, plain, fallback)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.expression(s.iter, plain, fallback, True)
            self.targets(s.target, "for", line, False, fallback)
            self.block(s.body + s.orelse, False, fallback, False)
        elif isinstance(s, ast.While):
            self.expression(s.test, plain, fallback, True)
            self.block(s.body + s.orelse, False, fallback, False)
        elif isinstance(s, ast.If):
            self.expression(s.test, plain, fallback, True)
            self.block(s.body + s.orelse, False, fallback, False)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.expression(item.context_expr, plain, fallback, True)
                if item.optional_vars is not None:
                    self.targets(item.optional_vars, "with", line, False, fallback)
            self.block(s.body, False, fallback, False)
        elif isinstance(s, _TRY):
            self.block(s.body, plain, fallback, False)
            for handler in s.handlers:
                self.expression(handler.type, False, fallback or top, True)
                if handler.name:
                    self.bind(handler.name, Binding("except", handler.lineno, plain=False, fallback=fallback or top))
                self.block(handler.body, False, fallback or top, False)
            self.block(s.orelse, False, fallback, False)
            self.block(s.finalbody, plain, fallback, False)
        elif type(s).__name__ == "Match":
            self.expression(getattr(s, "subject"), plain, fallback, True)  # noqa: B009 (Python >= 3.10)
            for case in getattr(s, "cases"):  # noqa: B009
                for node in ast.walk(case.pattern):
                    name = getattr(node, "name", None) or getattr(node, "rest", None)
                    if isinstance(name, str):
                        self.bind(name, Binding("match", case.pattern.lineno, plain=False, fallback=fallback))
                self.expression(case.guard, False, fallback, True)
                self.block(case.body, False, fallback, False)
        elif type(s).__name__ == "TypeAlias":
            name = getattr(s, "name")  # noqa: B009 (Python >= 3.12)
            if isinstance(name, ast.Name):
                self.bind(name.id, Binding("type alias", line, plain=plain, fallback=fallback))
        else:
            for child in ast.iter_child_nodes(s):
                self.expression(child, plain, fallback, True)

    # inside functions and classes: only what they declare `global` binds the module's names -------------
    def inner_scope(self, body: list, fallback: bool) -> None:
        declared: set[str] = set()
        stack: list[ast.AST] = list(body)
        nested: list[ast.AST] = []
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Global):
                declared.update(node.names)
                for name in node.names:
                    self.bind(name, Binding("global", node.lineno, fallback=fallback))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("exec", "globals"):
                self.set_dynamic(f"`{node.func.id}()` at line {node.lineno}")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        if target.value.id in _BUILTINS_MODULES:
                            self.bind(target.attr, Binding("builtins", node.lineno, fallback=fallback))
            own = getattr(node, "body", None)
            if isinstance(node, _SCOPES) and isinstance(own, list):  # a lambda's body is an expression: read on
                nested.append(node)
                stack.extend(child for child in ast.iter_child_nodes(node) if child not in own)
                continue
            stack.extend(ast.iter_child_nodes(node))
        for node in nested:
            body_of = getattr(node, "body", None)
            if isinstance(body_of, list):
                self.inner_scope(body_of, fallback)


def _walk(statements: Iterable[ast.stmt], module: str = "", is_package: bool = False) -> _Walker:
    """The walk over a module's top-level statements; each is read once and not kept."""
    walker = _Walker(module, is_package)
    for statement in statements:
        walker.statement(statement, True, False, True)
    return walker


def census(tree: ast.Module, module: str, is_package: bool = False) -> Census:
    """Every binding of every name of a parsed module (`module`: its dotted name, for relative imports)."""
    walker = _walk(tree.body, module, is_package)
    return Census({k: tuple(v) for k, v in walker.found.items()}, walker.dynamic, walker.future)


def census_of(source: str, module: str, is_package: bool = False) -> Optional[Census]:
    """The census of a module's text; None when CPython cannot parse it."""
    try:
        with warnings.catch_warnings():  # remarks on the scanned code are not ours to print
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return census(tree, module, is_package)


@dataclass(frozen=True)
class Bindings:
    names: frozenset[str]
    # The module may bind names no statement spells: `from x import *`, a module `__getattr__`, `globals()`,
    # `vars()` or `exec`, `sys.modules[__name__]` writes, `__all__` built at run time.
    open: bool
    star: bool = False  # among them a star import


# `builtins.name = ...` binds a builtin, not a name of the module.
_NOT_THE_MODULES = frozenset({"builtins"})


def bindings(statements: Iterable[ast.stmt]) -> Bindings:
    """Every name the module's top level may bind, in any statement form and any branch (`tree.body`, or the
    statements of a module read one at a time)."""
    walker = _walk(statements)
    names = frozenset(n for n, found in walker.found.items() if any(b.kind not in _NOT_THE_MODULES for b in found))
    getattr_ = any(b.kind == "def" for b in walker.found.get("__getattr__", ()))
    return Bindings(names, bool(walker.dynamic) or walker.modules or getattr_, walker.star)


_NOT_ASSIGNED = _NOT_THE_MODULES | {"import"}


def assigned(statements: Iterable[ast.stmt]) -> frozenset[str]:
    """The names the statements bind at module level other than by imports (what a part of an excerpt
    defines: `analysis/excerpt.py`)."""
    walker = _walk(statements)
    return frozenset(n for n, found in walker.found.items() if any(b.kind not in _NOT_ASSIGNED for b in found))


# What `def`, `class` and assignments bind (an import, a loop or `with` target, `except ... as` and the like
# aside): a name bound so twice at module level is not one definition.
ASSIGNED = frozenset({"def", "class", "assignment", "alias", "augmented assignment", "annotated assignment", "globals"})


def counts(statements: Iterable[ast.stmt], imports: bool = False) -> Counter:
    """How often each name is bound at module level by `def`, `class` or an assignment, in any block;
    `imports`: by imports too (as the census counts a fallback's bindings)."""
    kinds = ASSIGNED | {"import"} if imports else ASSIGNED
    walker = _walk(statements)
    return Counter({n: c for n, found in walker.found.items() if (c := sum(b.kind in kinds for b in found))})
