"""Normalisations that a fact makes safe: the current stream of the training device however it is spelled,
the same-device copy tweak (`fingerprint/same_device.py`) folded to the native call, and a `no_grad` decorator
the catalog proves every caller already runs under."""

from __future__ import annotations

import ast
from typing import Optional

from fsdp_unpatch.fingerprint import same_device
from fsdp_unpatch.fingerprint.normalisation import Context, FunctionNode, Normalisation, Trace
from fsdp_unpatch.fingerprint.same_device import dotted_name

# Spellings of "the current stream of the device FSDP2 runs on" (resolved names of the owner): in a copy, the
# NPU's own and upstream's device-neutral one; upstream also spells it `torch.cuda` (releases before 2.7).
_DEVICE_STREAM_OWNERS = frozenset({"torch.accelerator", "torch.npu", "torch_npu.npu"})
_UPSTREAM_STREAM_OWNERS = _DEVICE_STREAM_OWNERS | {"torch.cuda"}
_DEVICE_HANDLE = "device_handle"  # a local of the collectives, an attribute of FSDPParamGroup
_CANON_STREAM = "__device__.current_stream"


class _StreamCanon(ast.NodeTransformer):
    def __init__(self, self_name: Optional[str], owners: frozenset[str]) -> None:
        self.self_name = self_name
        self.owners = owners
        self.spellings: list[str] = []

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        name = dotted_name(node.func)
        if node.args or node.keywords or name is None or not name.endswith(".current_stream"):
            return node
        owner = name[: -len(".current_stream")]
        if (
            owner in self.owners
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
    canon = _StreamCanon(
        args[0].arg if args else None, _UPSTREAM_STREAM_OWNERS if ctx.upstream else _DEVICE_STREAM_OWNERS
    )
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
        # another device's stream in a copy for the NPU
        (
            "def f(self, e):\n    torch.cuda.current_stream().wait_event(e)\n",
            "def f(self, e):\n    self.device_handle.current_stream().wait_event(e)\n",
        ),
    ),
)


class _SameDeviceCopyFolder(ast.NodeTransformer):
    """Replaces each occurrence of the tweak (`fingerprint/same_device.py` recognises it) by the native call."""

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
