"""Facts of a file's `torch.library` calls: the ops it defines and the kernels it registers.

Read by the rules that report kernel registrations (FSU103 `kernel_registration.py`) and vendored copies of
FSDP2's ops (`vendored_fsdp2.py`): facts, not decisions, so below the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts

LIBRARY = "torch.library.Library"
LIBRARY_IMPL = ("torch.library.impl", "torch.library.register_kernel")
LIBRARY_DEFINE = ("torch.library.define", "torch.library.custom_op")


def literal(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def literals(node: cst.BaseExpression) -> Optional[tuple[str, ...]]:
    """A string literal or a list/tuple of them."""
    single = literal(node)
    if single is not None:
        return (single,)
    if isinstance(node, (cst.List, cst.Tuple)):
        values = [literal(e.value) for e in node.elements]
        if all(v is not None for v in values):
            return tuple(values)  # type: ignore[arg-type]
    return None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _library_definitions(node: cst.BaseExpression, facts: Facts) -> Optional[str]:
    """ "fsdp" for `lib` bound by `Library("fsdp", "DEF")` or `"FRAGMENT"`: a library that may define ops."""
    call = facts.call_bindings.get(node.value) if isinstance(node, cst.Name) else None
    if call is None or facts.table.qualify(call.func) != LIBRARY:
        return None
    args = positional(call)
    kind = literal(args[1]) if len(args) > 1 else literal(keyword(call, "kind") or cst.Name("_"))
    return literal(args[0]) if args and kind in ("DEF", "FRAGMENT") else None


def defined_ops(facts: Facts) -> dict[tuple[str, str], cst.Call]:
    """Ops the file defines itself, (namespace, op) -> the defining call: `lib.define("op(...) -> ...")` on a
    `Library(ns, "DEF" | "FRAGMENT")`, `torch.library.define("ns::op", ...)`, `@torch.library.custom_op("ns::op")`."""
    found: dict[tuple[str, str], cst.Call] = {}
    for call, _ in facts.registrations:
        args = positional(call)
        schema = literal(args[0]) if args else None
        if schema is None:
            continue
        if facts.table.qualify(call.func) in LIBRARY_DEFINE:
            split = _split_op(schema, None)
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "define":
            namespace = _library_definitions(call.func.value, facts)
            split = _split_op(schema.split("(")[0].strip(), namespace) if namespace else None
        else:
            continue
        if split is not None:
            found.setdefault(split, call)
    return found


@dataclass(frozen=True)
class KernelRegistration:
    call: cst.Call
    namespace: str
    op: str
    keys: tuple[str, ...]
    function: Optional[cst.BaseExpression]  # the kernel, when the call names it


def _library_namespace(node: cst.BaseExpression, facts: Facts) -> Optional[str]:
    """ "fsdp" for `lib` bound by `lib = torch.library.Library("fsdp", "IMPL")` (or that call inline)."""
    call = (
        node
        if isinstance(node, cst.Call)
        else (facts.call_bindings.get(node.value) if isinstance(node, cst.Name) else None)
    )
    if call is None or facts.table.qualify(call.func) != LIBRARY:
        return None
    args = positional(call)
    return literal(args[0]) if args else None


def _split_op(name: str, namespace: Optional[str]) -> Optional[tuple[str, str]]:
    """ "fsdp::op" -> ("fsdp", "op"); "op" (with the library's namespace) -> (namespace, "op")."""
    if "::" in name:
        ns, _, op = name.partition("::")
        return ns, op.split(".")[0]
    return (namespace, name.split(".")[0]) if namespace else None


def kernel_registrations(facts: Facts) -> Iterator[KernelRegistration]:
    for call, _ in facts.registrations:
        callee = facts.table.qualify(call.func)
        args = positional(call)
        if callee in LIBRARY_IMPL and args:
            # impl(lib, "op", "Key"[, fn]) or impl("ns::op", "Key" | [...][, fn]); register_kernel("ns::op", keys, fn)
            namespace = _library_namespace(args[0], facts)
            if namespace is not None and len(args) >= 3:
                name, keys, function = literal(args[1]), literals(args[2]), args[3] if len(args) > 3 else None
            else:
                name = literal(args[0])
                keys = literals(args[1]) if len(args) > 1 else literals(keyword(call, "types") or cst.Name("_"))
                function = args[2] if len(args) > 2 else keyword(call, "func")
            split = _split_op(name, namespace) if name else None
            if split is not None:
                yield KernelRegistration(call, split[0], split[1], keys or (), function)
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "impl" and len(args) >= 2:
            # lib.impl("op", fn, "Key") on a Library object
            namespace = _library_namespace(call.func.value, facts)
            name = literal(args[0])
            if namespace is None or name is None:
                continue
            key = args[2] if len(args) > 2 else keyword(call, "dispatch_key")
            split = _split_op(name, namespace)
            if split is not None:
                # a key that is not a literal (a variable) is unknown: reported as "a dispatch key"
                keys = (literals(key) if key is not None else None) or ()
                yield KernelRegistration(call, split[0], split[1], keys, args[1])


def registered_by_decorator(function: cst.FunctionDef, facts: Facts) -> bool:
    """Whether a decorator of `function` registers it as a kernel (`@torch.library.impl(lib, "op", "Key")`):
    deleting the function would delete that registration too, which is an override of its own (FSU103)."""
    decorators = {id(d.decorator) for d in function.decorators}
    return any(id(registration.call) in decorators for registration in kernel_registrations(facts))
