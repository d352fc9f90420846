"""Normalisations for how a copy is written, not what it does: docstrings, how names are spelled (resolved
through the module's census), annotations that do nothing, registration decorators of torch's own, and a
walrus in a condition."""

from __future__ import annotations

import ast
from typing import Optional

from fsdp_unpatch.fingerprint.normalisation import (
    Context,
    FunctionNode,
    Normalisation,
    Trace,
    all_args,
    is_docstring,
    local_names,
    statement_lists,
)
from fsdp_unpatch.fingerprint.same_device import dotted_name
from fsdp_unpatch.fingerprint.scope import BUILTINS as _BUILTIN_NAMES
from fsdp_unpatch.fingerprint.scope import UNRESOLVED, Scope


def _strip_docstrings(fn: FunctionNode, ctx: Context) -> Trace:
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.body and is_docstring(node.body[0]):
                del node.body[0]
                if not node.body:
                    node.body.append(ast.Pass())
    return ()


DOCSTRINGS = Normalisation(
    "docstrings",
    "",
    _strip_docstrings,
    must_match=(('def f(x):\n    "NPU copy."\n    return x\n', "def f(x):\n    return x\n"),),
    must_differ=(('def f(x):\n    "NPU copy."\n    return "NPU copy."\n', "def f(x):\n    return x\n"),),
)


# Nodes whose bodies are scopes of their own (comprehensions too: their targets do not bind in the function).
_INNER_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _bound_by_more_than_declarations(fn: FunctionNode) -> set[str]:
    """Names the function's own scope binds by anything but a bare annotation (`x: T` without a value)."""
    bound = {a.arg for a in all_args(fn.args)}
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        if not isinstance(node, _INNER_SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return bound


# Where the names an annotation may read without doing anything but building a type come from.
_TYPE_ROOTS = frozenset({"torch", "FSDP2", "typing", "typing_extensions", "collections", "types", "builtins"})
_TYPE_NODES = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Tuple,
    ast.List,
    ast.Constant,
    ast.Load,
    ast.BinOp,
    ast.BitOr,
)


def is_inert(annotation: Optional[ast.expr], local: set[str]) -> bool:
    """An annotation (its names resolved) whose evaluation does nothing but build a type: names of torch,
    FSDP2, typing and builtins, subscripts, `|`, literals. A call, a local, a name of the module's own or one
    the scope cannot resolve may do anything: such an annotation is compared like any other code."""
    if annotation is None:
        return True
    for node in ast.walk(annotation):
        if not isinstance(node, _TYPE_NODES) or isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr):
            return False
        if isinstance(node, ast.Name):
            head = node.id.split(".")[0]
            if node.id in local or not (head in _TYPE_ROOTS or ("." not in node.id and node.id in _BUILTIN_NAMES)):
                return False
        if isinstance(node, ast.Attribute) and not isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
            return False
    return True


class _AnnotationStripper(ast.NodeTransformer):
    """Drops the annotations that are never evaluated (of a function's locals; all of them under
    `from __future__ import annotations`) and the ones whose evaluation does nothing (`is_inert`)."""

    def __init__(self, local: set[str], evaluated: bool) -> None:
        self.local = local  # the copy's locals: an annotation of a nested def that reads one is not inert
        self.evaluated = evaluated
        self.scopes: list[Optional[set[str]]] = []  # per enclosing function (None: a class body)

    def drops(self, annotation: Optional[ast.expr]) -> bool:
        return not self.evaluated or is_inert(annotation, self.local if self.scopes else set())

    def visit_arg(self, node: ast.arg) -> ast.arg:
        if self.drops(node.annotation):
            node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        if self.drops(node.returns):
            node.returns = None
        node.args = self.visit(node.args)  # evaluated where the def is: in the enclosing scope
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        self.scopes.append(_bound_by_more_than_declarations(node))
        node.body = [self.visit(s) for s in node.body]
        node.body = [s for s in node.body if s is not None] or [ast.Pass()]
        self.scopes.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.scopes.append(None)
        self.generic_visit(node)
        self.scopes.pop()
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign):
        in_function = bool(self.scopes) and self.scopes[-1] is not None
        if not in_function and not self.drops(node.annotation):
            return node  # a class body evaluates it
        if node.value is None:
            # A bare declaration does nothing at run time, but makes the name local to the whole function:
            # it stays (and is resolved as local) unless the function binds the name anyway.
            local = isinstance(node.target, ast.Name) and node.simple and in_function
            if local and node.target.id not in self.scopes[-1]:  # type: ignore[union-attr, operator]
                return node
            return None
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def generic_visit(self, node):
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(node, ast.stmt) and isinstance(body, list) and not body:
            body.append(ast.Pass())
        return node


def _strip_annotations(fn: FunctionNode, ctx: Context) -> Trace:
    _AnnotationStripper(local_names(fn), not ctx.scope.future_annotations).visit(fn)
    return ()


def strip_every_annotation(fn: FunctionNode) -> None:
    """Every annotation dropped (for a diff a reader reads, never for the comparison)."""
    _AnnotationStripper(set(), False).visit(fn)


ANNOTATIONS = Normalisation(
    "annotations",
    "",
    _strip_annotations,
    must_match=(
        (
            "def f(xs: list[int]) -> int:\n    n: int = len(xs)\n    return n\n",
            "def f(xs):\n    n = len(xs)\n    return n\n",
        ),
        # a bare declaration of a name the function assigns anyway changes nothing
        ("def f(xs):\n    n: int\n    n = len(xs)\n    return n\n", "def f(xs):\n    n = len(xs)\n    return n\n"),
    ),
    must_differ=(
        ("def f(xs: list[int]) -> int:\n    n: int = 0\n    return n\n", "def f(xs):\n    n = len(xs)\n    return n\n"),
        # an annotation is evaluated when the `def` runs: one that calls something does something
        ("def f(xs) -> print('side effect') or int:\n    return len(xs)\n", "def f(xs) -> int:\n    return len(xs)\n"),
        (
            "def f(xs):\n    def g(x) -> xs.pop() or bool:\n        return x\n    return g(xs)\n",
            "def f(xs):\n    def g(x) -> bool:\n        return x\n    return g(xs)\n",
        ),
        # `dist: object` makes `dist` local to the whole function: the copy raises UnboundLocalError
        (
            "def f(w):\n    dist: object\n    return isinstance(w, dist.Work)\n",
            "def f(w):\n    return isinstance(w, dist.Work)\n",
        ),
    ),
)


def is_library_impl(decorator: ast.expr) -> bool:
    """`@torch.library.impl(...)` (any spelling ending in `library.impl`): how upstream's own sources are read."""
    name = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
    return name == "library.impl" or name.endswith(".library.impl")


def _is_registration(decorator: ast.expr) -> bool:
    """`@torch.library.impl(lib, "op", "Key")`, its names resolved: torch's own `impl`, handed names and
    literals only (evaluating them does nothing else)."""
    if not isinstance(decorator, ast.Call) or dotted_name(decorator.func) != "torch.library.impl":
        return False
    arguments = [*decorator.args, *(k.value for k in decorator.keywords)]
    return all(
        isinstance(a, ast.Constant) or (isinstance(a, ast.Name) and not a.id.startswith(UNRESOLVED)) for a in arguments
    )


def _strip_registrations(fn: FunctionNode, ctx: Context) -> Trace:
    """``@torch.library.impl(...)`` says where a kernel is registered, not what it does (after names are
    resolved: a `library` of the project's own is not torch's)."""
    fn.decorator_list = [d for d in fn.decorator_list if not _is_registration(d)]
    return ()


REGISTRATIONS = Normalisation(
    "registrations",
    "",
    _strip_registrations,
    must_match=(
        (
            '@torch.library.impl(lib, "op", "PrivateUse1")\ndef f(x):\n    return x\n',
            '@torch.library.impl(lib, "op", "CUDA")\ndef f(x):\n    return x\n',
        ),
    ),
    must_differ=(
        ("@torch.enable_grad()\ndef f(x):\n    return x\n", "def f(x):\n    return x\n"),
        # a `library` of the project's own is not torch's: its `impl` may do anything
        (
            "from my_vendor import library\n@library.impl(lib, 'op', 'PrivateUse1')\ndef f(x):\n    return x\n",
            "@torch.library.impl(lib, 'op', 'CUDA')\ndef f(x):\n    return x\n",
        ),
    ),
)


class _NameResolver(ast.NodeTransformer):
    """Every free name (and attribute chain rooted at one) becomes one Name: its canonical qualified name."""

    def __init__(self, local: set[str], scope: Scope) -> None:
        self.local = local
        self.scope = scope

    def _resolved(self, node: ast.expr) -> Optional[ast.expr]:
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in self.local:
            return None
        full = self.scope.resolve(head) + (f".{rest}" if rest else "")
        return ast.copy_location(ast.Name(id=full, ctx=ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.ctx, ast.Load):
            resolved = self._resolved(node)
            if resolved is not None:
                return resolved
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load):
            return self._resolved(node) or node
        return node


def _resolve_names(fn: FunctionNode, ctx: Context) -> Trace:
    # The decorators, defaults and annotations of the `def` are evaluated in the module, not in the function.
    outer = _NameResolver(set(), ctx.scope)
    fn.decorator_list = [outer.visit(d) for d in fn.decorator_list]
    fn.args = outer.visit(fn.args)
    if fn.returns is not None:
        fn.returns = outer.visit(fn.returns)
    resolver = _NameResolver(local_names(fn), ctx.scope)
    fn.body = [resolver.visit(s) for s in fn.body]
    return ()


NAMES = Normalisation(
    "names",
    "",
    _resolve_names,
    must_match=(
        (
            "def f(w):\n    return isinstance(w, torch.distributed.distributed_c10d.Work)\n",
            "def f(w):\n    return isinstance(w, dist.distributed_c10d.Work)\n",
        ),
        (
            "from torch.distributed.fsdp._fully_shard._fsdp_param import ShardedState as States\n"
            "def f(p):\n    return p.sharded_state == States.SHARDED\n",
            "def f(p):\n    return p.sharded_state == ShardedState.SHARDED\n",
        ),
    ),
    must_differ=(
        # the same spelling bound to something else: `dist` is not torch.distributed in the copy
        (
            "import my_vendor.fake_distributed as dist\ndef f(w):\n    return isinstance(w, dist.Work)\n",
            "def f(w):\n    return isinstance(w, dist.Work)\n",
        ),
        # a helper of the copy's own module is not FSDP2's helper of the same name
        ("def helper(x):\n    return x\ndef f(x):\n    return helper(x)\n", "def f(x):\n    return helper(x)\n"),
        # a name bound twice in the module: which binding the copy sees cannot be told
        (
            "try:\n    import my_vendor.fake as dist\nexcept ImportError:\n    pass\n"
            "def f(w):\n    return isinstance(w, dist.Work)\n",
            "def f(w):\n    return isinstance(w, dist.Work)\n",
        ),
        # a builtin the module rebinds
        (
            "isinstance = print\ndef f(w):\n    return isinstance(w, int)\n",
            "def f(w):\n    return isinstance(w, int)\n",
        ),
        # a star import may bind any name
        (
            "from my_vendor import *\ndef f(w):\n    return isinstance(w, int)\n",
            "def f(w):\n    return isinstance(w, int)\n",
        ),
    ),
)


def _hoistable_walrus(test: ast.expr) -> Optional[ast.NamedExpr]:
    """The ``:=`` evaluated first and unconditionally by an ``if`` test, if any."""
    node = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    if isinstance(node, ast.Compare):
        node = node.left
    if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
        return node
    return None


class _ReplaceNode(ast.NodeTransformer):
    def __init__(self, old: ast.AST, new: ast.AST) -> None:
        self.old, self.new = old, new

    def visit(self, node):
        return self.new if node is self.old else super().visit(node)


def _hoist_walrus(fn: FunctionNode, ctx: Context) -> Trace:
    """``if (x := E) is not None:`` becomes ``x = E`` followed by ``if x is not None:``."""
    hoisted = 0
    for statements in list(statement_lists(fn)):
        i = 0
        while i < len(statements):
            stmt = statements[i]
            walrus = _hoistable_walrus(stmt.test) if isinstance(stmt, ast.If) else None
            if walrus is not None:
                target = walrus.target
                assert isinstance(target, ast.Name)
                assign = ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())], value=walrus.value), stmt
                )
                stmt.test = _ReplaceNode(walrus, ast.Name(id=target.id, ctx=ast.Load())).visit(stmt.test)
                statements.insert(i, assign)
                hoisted += 1
                i += 1
            i += 1
    return (hoisted,) if hoisted else ()


WALRUS = Normalisation(
    "walrus",
    "assignment before `if` instead of `:=`",
    _hoist_walrus,
    must_match=(
        (
            "def f(r):\n    event = r.event\n    if event is not None:\n        event.wait()\n",
            "def f(r):\n    if (event := r.event) is not None:\n        event.wait()\n",
        ),
        (
            "def f(r):\n    if r:\n        e = r.event\n        if not e:\n            return 1\n",
            "def f(r):\n    if r:\n        if not (e := r.event):\n            return 1\n",
        ),
    ),
    must_differ=(
        # another name tested
        (
            "def f(r, other):\n    event = r.event\n    if other is not None:\n        event.wait()\n",
            "def f(r, other):\n    if (event := r.event) is not None:\n        event.wait()\n",
        ),
        # another expression assigned
        (
            "def f(r):\n    event = r.other_event\n    if event is not None:\n        event.wait()\n",
            "def f(r):\n    if (event := r.event) is not None:\n        event.wait()\n",
        ),
        # evaluated only when the left operand is true: not the same as assigning first
        (
            "def f(r, ok):\n    event = r.event\n    if ok and event:\n        event.wait()\n",
            "def f(r, ok):\n    if ok and (event := r.event):\n        event.wait()\n",
        ),
        # the name is used again before the test in the copy
        (
            "def f(r):\n    event = r.event\n    event = None\n    if event is not None:\n        event.wait()\n",
            "def f(r):\n    if (event := r.event) is not None:\n        event.wait()\n",
        ),
    ),
)
