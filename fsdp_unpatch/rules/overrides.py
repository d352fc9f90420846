"""Overrides that are not an attribute assignment of a replacement: kernel registrations for FSDP ops,
`__code__` swaps, and patches made by tests (`mock.patch`, `monkeypatch.setattr`).

None of them is ever fixed: a kernel registration or a code swap changes what every caller runs, and a
test patch is scoped to its test. They are reported so that users see every override. Each rule is
declared in its own module (`kernel_registration.py`, ...); the other override rules are planned in
`analysis/plan.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id
from fsdp_unpatch.catalog import Catalog, Target
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.rules.code_object_swap import CODE_OBJECT_SWAP
from fsdp_unpatch.rules.kernel_registration import KERNEL_REGISTRATION
from fsdp_unpatch.rules.test_patch import TEST_PATCH

# (code, node to report, message, target id)
Report = tuple[str, cst.CSTNode, str, Optional[str]]
CodeOf = Callable[[cst.CSTNode], str]

LIBRARY = "torch.library.Library"
LIBRARY_IMPL = ("torch.library.impl", "torch.library.register_kernel")
LIBRARY_DEFINE = ("torch.library.define", "torch.library.custom_op")
# Callees (qualified, or as spelled for pytest fixtures) that patch an attribute for the span of a test.
TEST_PATCHERS = ("mock.patch", "mock.patch.object", "monkeypatch.setattr", "mocker.patch", "mocker.patch.object")
# Callees that replace `sys.modules` entries for the span of a test: (callee, the dict, the key or the new items).
MODULE_PATCHERS = ("monkeypatch.setitem", "mock.patch.dict", "mocker.patch.dict")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _literal(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _literals(node: cst.BaseExpression) -> Optional[tuple[str, ...]]:
    """A string literal or a list/tuple of them."""
    single = _literal(node)
    if single is not None:
        return (single,)
    if isinstance(node, (cst.List, cst.Tuple)):
        values = [_literal(e.value) for e in node.elements]
        if all(v is not None for v in values):
            return tuple(values)  # type: ignore[arg-type]
    return None


def _positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def _keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _library_definitions(node: cst.BaseExpression, facts: Facts) -> Optional[str]:
    """ "fsdp" for `lib` bound by `Library("fsdp", "DEF")` or `"FRAGMENT"`: a library that may define ops."""
    call = facts.call_bindings.get(node.value) if isinstance(node, cst.Name) else None
    if call is None or facts.table.qualify(call.func) != LIBRARY:
        return None
    args = _positional(call)
    kind = _literal(args[1]) if len(args) > 1 else _literal(_keyword(call, "kind") or cst.Name("_"))
    return _literal(args[0]) if args and kind in ("DEF", "FRAGMENT") else None


def defined_ops(facts: Facts) -> dict[tuple[str, str], cst.Call]:
    """Ops the file defines itself, (namespace, op) -> the defining call: `lib.define("op(...) -> ...")` on a
    `Library(ns, "DEF" | "FRAGMENT")`, `torch.library.define("ns::op", ...)`, `@torch.library.custom_op("ns::op")`."""
    found: dict[tuple[str, str], cst.Call] = {}
    for call, _ in facts.registrations:
        args = _positional(call)
        schema = _literal(args[0]) if args else None
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


# kernel registrations ------------------------------------------------------------------------------


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
    args = _positional(call)
    return _literal(args[0]) if args else None


def _split_op(name: str, namespace: Optional[str]) -> Optional[tuple[str, str]]:
    """ "fsdp::op" -> ("fsdp", "op"); "op" (with the library's namespace) -> (namespace, "op")."""
    if "::" in name:
        ns, _, op = name.partition("::")
        return ns, op.split(".")[0]
    return (namespace, name.split(".")[0]) if namespace else None


def kernel_registrations(facts: Facts) -> Iterator[KernelRegistration]:
    for call, _ in facts.registrations:
        callee = facts.table.qualify(call.func)
        args = _positional(call)
        if callee in LIBRARY_IMPL and args:
            # impl(lib, "op", "Key"[, fn]) or impl("ns::op", "Key" | [...][, fn]); register_kernel("ns::op", keys, fn)
            namespace = _library_namespace(args[0], facts)
            if namespace is not None and len(args) >= 3:
                name, keys, function = _literal(args[1]), _literals(args[2]), args[3] if len(args) > 3 else None
            else:
                name = _literal(args[0])
                keys = _literals(args[1]) if len(args) > 1 else _literals(_keyword(call, "types") or cst.Name("_"))
                function = args[2] if len(args) > 2 else _keyword(call, "func")
            split = _split_op(name, namespace) if name else None
            if split is not None:
                yield KernelRegistration(call, split[0], split[1], keys or (), function)
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "impl" and len(args) >= 2:
            # lib.impl("op", fn, "Key") on a Library object
            namespace = _library_namespace(call.func.value, facts)
            name = _literal(args[0])
            if namespace is None or name is None:
                continue
            key = args[2] if len(args) > 2 else _keyword(call, "dispatch_key")
            split = _split_op(name, namespace)
            if split is not None:
                # a key that is not a literal (a variable) is unknown: reported as "a dispatch key"
                keys = (_literals(key) if key is not None else None) or ()
                yield KernelRegistration(call, split[0], split[1], keys, args[1])


def registration_message(
    registration: KernelRegistration,
    entry: Optional[Target],
    target_torch: Version,
    code_of: CodeOf,
    kernel: Optional[str],
) -> str:
    fields = {
        "call": _short(code_of(registration.call)),
        "kernel": f"`{kernel}`" if kernel else "a kernel",
        "keys": ", ".join(f"`{k}`" for k in registration.keys) or "a dispatch key",
        "op": f"{registration.namespace}::{registration.op}",
    }
    if entry is not None and entry.native_since and "PrivateUse1" in registration.keys:
        since = Version.parse(entry.native_since)
        form = "replaces-native" if target_torch >= since else "before-native"
        return KERNEL_REGISTRATION.message(form, since=since, target_torch=target_torch, **fields)
    return KERNEL_REGISTRATION.message(**fields)


# `__code__` swaps ----------------------------------------------------------------------------------


def code_swap(install: RawInstall, facts: Facts, catalog: Catalog, code_of: CodeOf) -> Optional[Report]:
    """`X.__code__ = f.__code__` (or setattr) on an FSDP2 function: X itself now runs other code."""
    owner = facts.table.qualify(install.owner)
    target = target_id(owner, catalog) if owner else None
    if target is None or not is_fsdp2_private(target, catalog):
        return None
    spelled = _short(code_of(install.report))
    if not install.via_setattr:
        spelled += f" = {_short(code_of(install.value), 40)}"
    return CODE_OBJECT_SWAP.code, install.report, CODE_OBJECT_SWAP.message(spelled=spelled, target=target), target


# test patches --------------------------------------------------------------------------------------


def _patcher(callee: Optional[str]) -> Optional[str]:
    if callee is None:
        return None
    return next((p for p in TEST_PATCHERS if callee == p or callee.endswith("." + p)), None)


def _module_keys(call: cst.Call, facts: Facts) -> list[str]:
    """The `sys.modules` keys `monkeypatch.setitem(sys.modules, "k", v)` or `patch.dict(sys.modules, {"k": v})` sets."""
    args = _positional(call)
    if len(args) < 2 or not (facts.table.qualify(args[0]) == "sys.modules" or _literal(args[0]) == "sys.modules"):
        return []
    if isinstance(args[1], cst.Dict):
        keys = [_literal(e.key) for e in args[1].elements if isinstance(e, cst.DictElement)]
        return [k for k in keys if k is not None]
    key = _literal(args[1])
    return [key] if key is not None else []


def module_patches_in_tests(facts: Facts, catalog: Catalog, code_of: CodeOf) -> Iterator[Report]:
    from fsdp_unpatch.rules.module_replacement import fsdp2_module

    for call, _ in facts.registrations:
        callee = facts.table.qualify(call.func)
        if callee is None or not any(callee == p or callee.endswith("." + p) for p in MODULE_PATCHERS):
            continue
        for key in _module_keys(call, facts):
            module = fsdp2_module(key, catalog)
            if module is not None:
                yield TEST_PATCH.code, call, TEST_PATCH.message(call=_short(code_of(call)), target=module), module


def patches_in_tests(facts: Facts, catalog: Catalog, code_of: CodeOf) -> Iterator[Report]:
    yield from module_patches_in_tests(facts, catalog, code_of)
    for call, _ in facts.registrations:
        patcher = _patcher(facts.table.qualify(call.func))
        if patcher is None:
            continue
        args = _positional(call)
        if not args:
            continue
        dotted = _literal(args[0])
        if dotted is not None:  # patch("pkg.mod.attr", ...) / monkeypatch.setattr("pkg.mod.attr", value)
            qualified: Optional[str] = dotted
        elif len(args) >= 2 and _literal(args[1]) is not None:  # patch.object(obj, "attr") / setattr(obj, "attr", v)
            owner = facts.table.qualify(args[0])
            qualified = f"{owner}.{_literal(args[1])}" if owner else None
        else:
            continue
        target = target_id(qualified, catalog) if qualified else None
        if target is None or not is_fsdp2_private(target, catalog):
            continue
        yield TEST_PATCH.code, call, TEST_PATCH.message(call=_short(code_of(call)), target=target), target
