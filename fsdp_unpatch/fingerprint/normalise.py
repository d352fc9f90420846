"""Normalisations: the named ways a copy may differ from upstream without doing anything else.

Each normalisation is one small unit: a rewrite of a function's ``ast`` (in place), the label a report
uses when the rewrite was needed to make a copy equal upstream, and examples -- pairs that must compare
equal with it and pairs that must not (a real change it must never hide). The test suite runs every
example of every unit, like a Fixit rule's VALID/INVALID lists.

A rewrite returns a *trace* (what it rewrote). When the candidate's trace differs from upstream's, the
normalisation was needed, and a `remove` finding names it ("up to: ...").

Stdlib only, Python >= 3.9.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Optional, Union

from fsdp_unpatch.analysis import same_device
from fsdp_unpatch.analysis.same_device import dotted_name
from fsdp_unpatch.fingerprint.scope import Scope

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]

__all__ = ["Context", "Normalisation", "PIPELINE", "dotted_name", "local_names"]


@dataclass(frozen=True)
class Context:
    """What a normalisation may know about one side of a comparison."""

    scope: Scope
    # The catalog proves that every caller of the target, in every supported release, runs under no_grad.
    no_grad_proven: bool = False


Trace = tuple


@dataclass(frozen=True)
class Normalisation:
    name: str
    label: str  # what a report says when it was needed ("" for the ones never worth saying)
    rewrite: Callable[[FunctionNode, Context], Trace]
    # (candidate, upstream) function sources, in a module that imports `torch`, `torch.distributed as
    # dist` and FSDP2's `FSDPParam`; `no_grad_proven` holds for them.
    must_match: tuple[tuple[str, str], ...] = ()
    must_differ: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def all_args(args: ast.arguments) -> list[ast.arg]:
    out = list(args.posonlyargs) + list(args.args)
    if args.vararg:
        out.append(args.vararg)
    out += list(args.kwonlyargs)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def local_names(fn: FunctionNode) -> set[str]:
    """Names bound inside the function (parameters, assignments, loop/with/except targets, nested defs,
    comprehension variables), less the ones declared ``global``."""
    bound = {a.arg for a in all_args(fn.args)}
    declared_global: set[str] = set()
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bound.add(node.id)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.Global):
                declared_global.update(node.names)
            elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
                bound.add(getattr(node, "name"))  # noqa: B009 (ast.MatchAs is Python >= 3.10)
    return bound - declared_global


def _statement_lists(node: ast.AST):
    """Every list of statements in a tree (bodies, else branches, handlers), outermost first."""
    for child in ast.walk(node):
        for field_name in ("body", "orelse", "finalbody"):
            value = getattr(child, field_name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


# ---------------------------------------------------------------------------------------------
# the units
# ---------------------------------------------------------------------------------------------


def _strip_docstrings(fn: FunctionNode, ctx: Context) -> Trace:
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.body and _is_docstring(node.body[0]):
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


class _AnnotationStripper(ast.NodeTransformer):
    def __init__(self) -> None:
        self.scopes: list[set[str]] = []  # per enclosing function: names bound by more than a declaration

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        self.scopes.append(_bound_by_more_than_declarations(node))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            # A bare declaration does nothing at run time, but makes the name local to the whole function:
            # it stays (and is resolved as local) unless the function binds the name anyway.
            local = isinstance(node.target, ast.Name) and node.simple and self.scopes
            if local and node.target.id not in self.scopes[-1]:  # type: ignore[union-attr]
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
    _AnnotationStripper().visit(fn)
    return ()


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
        # `dist: object` makes `dist` local to the whole function: the copy raises UnboundLocalError
        (
            "def f(w):\n    dist: object\n    return isinstance(w, dist.Work)\n",
            "def f(w):\n    return isinstance(w, dist.Work)\n",
        ),
    ),
)


def is_library_impl(decorator: ast.expr) -> bool:
    """`@torch.library.impl(...)` (any spelling ending in `library.impl`)."""
    name = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
    return name == "library.impl" or name.endswith(".library.impl")


def _strip_registrations(fn: FunctionNode, ctx: Context) -> Trace:
    """``@torch.library.impl(...)`` says where a kernel is registered, not what it does."""
    fn.decorator_list = [d for d in fn.decorator_list if not is_library_impl(d)]
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
    must_differ=(("@torch.enable_grad()\ndef f(x):\n    return x\n", "def f(x):\n    return x\n"),),
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
    resolver = _NameResolver(local_names(fn), ctx.scope)
    fn.decorator_list = [resolver.visit(d) for d in fn.decorator_list]
    fn.args = resolver.visit(fn.args)
    fn.body = [resolver.visit(s) for s in fn.body]
    return ()


_IMPORTS = "import torch\nimport torch.distributed as dist\n"
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
    for statements in list(_statement_lists(fn)):
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

# Spellings of "the current stream of the device FSDP2 runs on" (resolved names of the owner).
_DEVICE_STREAM_OWNERS = frozenset({"torch.cuda", "torch.accelerator", "torch.npu", "torch_npu.npu"})
_DEVICE_HANDLE = "device_handle"  # a local of the collectives, an attribute of FSDPParamGroup
_CANON_STREAM = "__device__.current_stream"


class _StreamCanon(ast.NodeTransformer):
    def __init__(self, self_name: Optional[str]) -> None:
        self.self_name = self_name
        self.spellings: list[str] = []

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        name = dotted_name(node.func)
        if node.args or node.keywords or name is None or not name.endswith(".current_stream"):
            return node
        owner = name[: -len(".current_stream")]
        if (
            owner in _DEVICE_STREAM_OWNERS
            or owner == _DEVICE_HANDLE
            or (self.self_name and owner == f"{self.self_name}.{_DEVICE_HANDLE}")
        ):
            self.spellings.append("device_handle" if owner.endswith(_DEVICE_HANDLE) else owner)
            func = ast.Name(id=_CANON_STREAM, ctx=ast.Load())
            return ast.copy_location(ast.Call(func=func, args=[], keywords=[]), node)
        return node


def _canonical_streams(fn: FunctionNode, ctx: Context) -> Trace:
    """Every spelling of the device's current stream becomes one form."""
    args = fn.args.posonlyargs + fn.args.args
    canon = _StreamCanon(args[0].arg if args else None)
    fn.body = [canon.visit(s) for s in fn.body]
    return tuple(canon.spellings)


STREAMS = Normalisation(
    "streams",
    "device stream accessor",
    _canonical_streams,
    must_match=(
        (
            "def f(self, e):\n    torch.npu.current_stream().wait_event(e)\n",
            "def f(self, e):\n    torch.accelerator.current_stream().wait_event(e)\n",
        ),
        (
            "def f(self, e):\n    torch.npu.current_stream().wait_event(e)\n",
            "def f(self, e):\n    self.device_handle.current_stream().wait_event(e)\n",
        ),
    ),
    must_differ=(
        # another stream than the current one
        (
            "def f(self, e):\n    torch.npu.default_stream().wait_event(e)\n",
            "def f(self, e):\n    torch.accelerator.current_stream().wait_event(e)\n",
        ),
        # the current stream of some other object
        (
            "def f(self, e, other):\n    other.current_stream().wait_event(e)\n",
            "def f(self, e, other):\n    torch.accelerator.current_stream().wait_event(e)\n",
        ),
    ),
)


class _SameDeviceCopyFolder(ast.NodeTransformer):
    """Replaces each occurrence of the tweak (`analysis/same_device.py` recognises it) by the native call."""

    def __init__(self) -> None:
        self.count = 0

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        tweak = same_device.match_if(node)
        if tweak is None:
            return node
        native = (node.body, node.orelse)[tweak.native_branch][0]
        arguments = same_device.copy_arguments(native, same_device.spelled_as_copy)
        assert arguments is not None  # match_if checked it
        self.count += 1
        call = ast.Call(
            func=ast.Name(id="torch._foreach_copy_", ctx=ast.Load()), args=[arguments[0], arguments[1]], keywords=[]
        )
        return ast.copy_location(ast.Expr(value=call), node)

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if not same_device.match_call(node):
            return node
        self.count += 1
        return ast.copy_location(ast.Call(func=node.func, args=node.args[:2], keywords=[]), node)


def _fold_same_device_copy(fn: FunctionNode, ctx: Context) -> Trace:
    """The NPU tweak: ``if A[0].device == B[0].device: torch._foreach_copy_(A, B, non_blocking=True)
    else: torch._foreach_copy_(A, B)`` (any operand order, ``!=`` or ``not``, the flag by keyword or
    position) becomes the native ``torch._foreach_copy_(A, B)``."""
    folder = _SameDeviceCopyFolder()
    fn.body = [folder.visit(s) for s in fn.body]
    return (folder.count,) if folder.count else ()


_TWEAK = (
    "    if dst[0].device == src[0].device:\n        torch._foreach_copy_(dst, src, non_blocking=True)\n"
    "    else:\n        torch._foreach_copy_(dst, src)\n"
)
SAME_DEVICE_COPY = Normalisation(
    "same-device-copy",
    "same-device `non_blocking=True` copy (the NPU tweak)",
    _fold_same_device_copy,
    must_match=(
        ("def f(dst, src):\n" + _TWEAK, "def f(dst, src):\n    torch._foreach_copy_(dst, src)\n"),
        (
            "def f(dst, src):\n    if src[0].device != dst[0].device:\n        torch._foreach_copy_(dst, src)\n"
            "    else:\n        torch._foreach_copy_(dst, src, True)\n",
            "def f(dst, src):\n    torch._foreach_copy_(dst, src)\n",
        ),
        (
            "def f(dst, src):\n    torch._foreach_copy_(dst, src, non_blocking=dst[0].device == src[0].device)\n",
            "def f(dst, src):\n    torch._foreach_copy_(dst, src)\n",
        ),
    ),
    must_differ=(
        # other tensors compared than the ones copied
        (
            "def f(dst, src, a, b):\n    if a[0].device == b[0].device:\n"
            "        torch._foreach_copy_(dst, src, non_blocking=True)\n    else:\n        torch._foreach_copy_(dst, src)\n",
            "def f(dst, src, a, b):\n    torch._foreach_copy_(dst, src)\n",
        ),
        # non_blocking in both branches is not the tweak
        (
            "def f(dst, src):\n    if dst[0].device == src[0].device:\n"
            "        torch._foreach_copy_(dst, src, non_blocking=True)\n    else:\n"
            "        torch._foreach_copy_(dst, src, non_blocking=True)\n",
            "def f(dst, src):\n    torch._foreach_copy_(dst, src)\n",
        ),
        # non_blocking when the devices differ is not the tweak
        (
            "def f(dst, src):\n    torch._foreach_copy_(dst, src, non_blocking=dst[0].device != src[0].device)\n",
            "def f(dst, src):\n    torch._foreach_copy_(dst, src)\n",
        ),
        # the fast branch copies something else
        (
            "def f(dst, src, other):\n    if dst[0].device == src[0].device:\n"
            "        torch._foreach_copy_(dst, other, non_blocking=True)\n    else:\n        torch._foreach_copy_(dst, src)\n",
            "def f(dst, src, other):\n    torch._foreach_copy_(dst, src)\n",
        ),
    ),
)


def _is_no_grad(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call) and not decorator.args and not decorator.keywords:
        decorator = decorator.func
    return dotted_name(decorator) == "torch.no_grad"


def _drop_proven_no_grad(fn: FunctionNode, ctx: Context) -> Trace:
    """``@torch.no_grad()`` changes nothing when every caller already runs under no_grad (a catalog
    fact generated from torch's sources); elsewhere it stays and is compared."""
    if not ctx.no_grad_proven:
        return ()
    before = len(fn.decorator_list)
    fn.decorator_list = [d for d in fn.decorator_list if not _is_no_grad(d)]
    dropped = before - len(fn.decorator_list)
    return (dropped,) if dropped else ()


NO_GRAD = Normalisation(
    "no-grad",
    "no `@torch.no_grad()`, which changes nothing: every caller already runs under no_grad",
    _drop_proven_no_grad,
    must_match=(("def f(x):\n    return x + 1\n", "@torch.no_grad()\ndef f(x):\n    return x + 1\n"),),
    must_differ=(
        # another decorator is not the one proven redundant
        ("@torch.enable_grad()\ndef f(x):\n    return x + 1\n", "@torch.no_grad()\ndef f(x):\n    return x + 1\n"),
        # a body change next to it still shows
        ("def f(x):\n    return x + 2\n", "@torch.no_grad()\ndef f(x):\n    return x + 1\n"),
    ),
)

# Order matters: names are resolved before the units that recognise resolved names (streams, the
# same-device copy, no_grad); the walrus is hoisted after names so that both sides hoist alike.
PIPELINE: tuple[Normalisation, ...] = (
    DOCSTRINGS,
    ANNOTATIONS,
    REGISTRATIONS,
    NAMES,
    WALRUS,
    STREAMS,
    SAME_DEVICE_COPY,
    NO_GRAD,
)
EXAMPLE_IMPORTS = _IMPORTS + "from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState\n"
