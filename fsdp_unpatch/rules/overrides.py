"""Overrides that are not an attribute assignment of a replacement: kernel registrations for FSDP ops,
`__code__` swaps, and patches made by tests (`mock.patch`, `monkeypatch.setattr`).

None of them is ever fixed: a kernel registration or a code swap changes what every caller runs, and a
test patch is scoped to its test. They are reported so that users see every override.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id
from fsdp_unpatch.catalog import Catalog, Target
from fsdp_unpatch.catalog.versions import Version

# (code, node to report, message, target id)
Report = tuple[str, cst.CSTNode, str, Optional[str]]
CodeOf = Callable[[cst.CSTNode], str]

LIBRARY = "torch.library.Library"
LIBRARY_IMPL = ("torch.library.impl", "torch.library.register_kernel")
# Callees (qualified, or as spelled for pytest fixtures) that patch an attribute for the span of a test.
TEST_PATCHERS = ("mock.patch", "mock.patch.object", "monkeypatch.setattr", "mocker.patch", "mocker.patch.object")


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
    keys = ", ".join(f"`{k}`" for k in registration.keys) or "a dispatch key"
    op = f"{registration.namespace}::{registration.op}"
    who = f"`{kernel}`" if kernel else "a kernel"
    text = f"`{_short(code_of(registration.call))}` registers {who} for {keys} of FSDP op `{op}`"
    if entry is not None and entry.native_since and "PrivateUse1" in registration.keys:
        since = Version.parse(entry.native_since)
        if target_torch >= since:
            text += (
                f"; native FSDP2 registers its own PrivateUse1 kernel since torch {since}, "
                "which this one replaces: check what it adds"
            )
        else:
            text += f"; native FSDP2 in torch {target_torch} has no PrivateUse1 kernel (it has from torch {since})"
    else:
        text += "; it replaces the kernel every caller of the op runs: check what it adds"
    return text


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
    return (
        "FSU104",
        install.report,
        f"`{spelled}` swaps the code of FSDP2 "
        f"internal `{target}` in place: every by-name import and saved original runs the new code too",
        target,
    )


# test patches --------------------------------------------------------------------------------------


def _patcher(callee: Optional[str]) -> Optional[str]:
    if callee is None:
        return None
    return next((p for p in TEST_PATCHERS if callee == p or callee.endswith("." + p)), None)


def patches_in_tests(facts: Facts, catalog: Catalog, code_of: CodeOf) -> Iterator[Report]:
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
        yield (
            "FSU202",
            call,
            f"`{_short(code_of(call))}` patches FSDP2 internal `{target}` for the span of a test; "
            "reported for information, never changed",
            target,
        )
