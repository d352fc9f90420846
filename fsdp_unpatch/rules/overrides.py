"""The override rules: everything about an override itself (FSU0xx remove, FSU1xx review, FSU2xx keep).

Declared here: the install site, the replacement it installs, the installer and its calls, the same-device
special case, and the overrides that stay (reviewed or kept). Most are planned per file in
`analysis/plan.py`; the logic here is for overrides that are not an attribute assignment of a
replacement: kernel registrations for FSDP ops, `__code__` swaps, and patches made by tests
(`mock.patch`, `monkeypatch.setattr`). None of those is ever fixed: a kernel registration or a code swap
changes what every caller runs, and a test patch is scoped to its test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id
from fsdp_unpatch.catalog import Catalog, Target
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.rules.registry import declare

PLAN = "fsdp_unpatch.analysis.plan"

COLLECTIVE_OVERRIDE = declare(
    "FSU001",
    "collective-override",
    category="remove",
    fix="safe",
    phase="file",
    summary="Install site of an FSDP2 collectives override that native FSDP2 now covers",
    messages="`{spelled}` overrides `{target}`, which native FSDP2 now covers (`{replacement}` {proof}); "
    "delete the override",
    targets="remove",
    planned_in=f"{PLAN} (_Analyzer.classify_install)",
    doc="""
    ## What it does
    Reports a statement that installs a replacement over an FSDP2 internal whose only NPU reason was a
    same-device `torch._foreach_copy_(..., non_blocking=True)` (or a hard-coded NPU stream), when the
    replacement is proven to be the upstream function plus the known NPU tweaks. The fix deletes the
    install site.

    ## Why
    The backend's foreach-copy fast path now gives same-device copies device-async semantics, so native
    FSDP2 runs as it does on CUDA; the override only freezes an old copy of upstream code.

    Precondition: ship this with the op-plugin release whose `_foreach_copy_` fast path is device-async
    (section 3.1 of the design review; `fsdp-unpatch doctor` checks it).

    ## Example
    ```python
    FSDPParamGroup.finalize_backward = _patched_finalize_backward  # FSU001: deleted
    ```
    """,
)

OVERRIDE_REPLACEMENT = declare(
    "FSU002",
    "override-replacement",
    category="remove",
    fix="safe",
    phase="file",
    summary="Replacement function that copies the upstream FSDP2 function with only the NPU tweak",
    messages={
        "default": "`{name}` {proof}; delete it with its install sites",
        "orphan": "`{name}` is the upstream FSDP2 function plus the NPU tweak only, and nothing installs it "
        "any more; delete it",
    },
    targets="remove",
    planned_in=f"{PLAN} (_Analyzer.plan_replacements), fsdp_unpatch.rules.orphans",
    exports=("deleted-names",),
    doc="""
    ## What it does
    Reports a function that is the upstream FSDP2 function plus the known NPU tweaks, when nothing in the
    scanned files refers to it once its install sites are gone (or, in a known patch module, nothing
    installs it any more). The fix deletes the definition and the imports only it used.

    ## Why
    A copy of upstream code that nothing installs is dead code that drifts from upstream with every
    torch release.

    ## Example
    ```python
    def _patched_get_param_all_gather_inputs(fsdp_params):  # FSU002: deleted with its install site
        ...  # upstream's body, with non_blocking=True on the same-device copy
    ```
    """,
)

PATCH_INSTALLER = declare(
    "FSU003",
    "patch-installer",
    category="remove",
    fix="safe",
    phase="file",
    summary="Installer function that has nothing left to install",
    messages={
        "default": "`{name}` has nothing left to install once the collectives overrides are gone",
        "orphan": "`{name}` has nothing left to install; delete it and its calls",
    },
    targets="remove",
    planned_in=f"{PLAN} (_Analyzer.plan_installers), fsdp_unpatch.rules.orphans",
    exports=("deleted-names",),
    doc="""
    ## What it does
    Reports the function that installed the collectives overrides (`_apply_fsdp_patch` in torch-npu) once
    every override it installed is removed. The fix deletes it, and its calls and imports in the files of
    the run (FSU004).

    ## Why
    An installer with an empty body still runs at import and keeps its callers tied to a module that
    no longer patches anything.

    ## Example
    ```python
    def _apply_fsdp_patch():  # FSU003: deleted once its install sites are gone
        FSDPParamGroup.finalize_backward = _patched_finalize_backward
    ```
    """,
)

INSTALLER_CALL = declare(
    "FSU004",
    "installer-call",
    category="remove",
    fix="safe",
    phase="run",
    summary="Call or import of a removed patch installer",
    messages="`{call}` calls an installer that is removed",
    targets="remove",
    planned_in=f"{PLAN} (plan_installer_calls), fsdp_unpatch.run.linking",
    doc="""
    ## What it does
    Reports a statement that calls, or an import that names, an installer the fix removes (in this file or
    another file of the run). The fix deletes the call statement and the imported name.

    ## Why
    The call would fail once the installer is gone. A use the tool cannot delete safely (the installer
    passed as a value) is reported with FSU101 instead.

    ## Example
    ```python
    from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch  # FSU004: import deleted
    _apply_fsdp_patch()  # FSU004: deleted
    ```
    """,
)

SAME_DEVICE_COPY = declare(
    "FSU005",
    "same-device-foreach-copy",
    category="review",
    fix="unsafe",
    phase="file",
    summary="Same-device special case around `torch._foreach_copy_` that only adds `non_blocking=True`",
    messages="same-device special case only adds `non_blocking=True`; the native `{native}` does the same once "
    "the backend's fast path is device-async (`fsdp-unpatch doctor`)",
    targets="remove",
    planned_in=f"{PLAN} (_Analyzer.plan_copies)",
    doc="""
    ## What it does
    Reports `if dst[0].device == src[0].device: torch._foreach_copy_(dst, src, non_blocking=True) else:
    torch._foreach_copy_(dst, src)` (and its one-call form) outside the overrides that are removed. The
    fix collapses the branch into the native call; it is applied only with `--unsafe-fixes`. It is never
    reported inside code that stays: a kept or reviewed override, a function any kept installer installs,
    a kernel registration, or the helpers they call (kept code stays byte-identical).

    ## Why
    The special case does what native code does with `torch._foreach_copy_(dst, src)` only once the
    backend's `_foreach_copy_` fast path is device-async (`fsdp-unpatch doctor` checks it), hence review
    and an unsafe fix.

    ## Example
    ```python
    if dst[0].device == src[0].device:  # FSU005: becomes torch._foreach_copy_(dst, src)
        torch._foreach_copy_(dst, src, non_blocking=True)
    else:
        torch._foreach_copy_(dst, src)
    ```
    """,
)

UNPROVEN_OVERRIDE = declare(
    "FSU101",
    "unproven-override",
    category="review",
    fix="none",
    phase="file",
    summary="Override of an FSDP2 internal that is not proven safe to remove",
    messages={
        "unknown": "`{spelled}` overrides FSDP2 internal `{target}`; no upstream copy is known to prove it redundant",
        "outside-enhance": "`{spelled}` overrides FSDP2 internal `{target}` outside the enhance patch; {described}",
        "reviewed": "`{spelled}` overrides FSDP2 internal `{target}`{versions}; {described}",
        "not-a-function": "`{target}` is replaced by `{value}`, not by a function defined here; a wrapper or "
        "factory may add behaviour, check before deleting",
        "bound-twice": "`{name}` is bound more than once here; which definition `{target}` gets depends on when "
        "the installer runs, check by hand",
        "wraps-original": "`{name}` wraps the original `{target}` and may add behaviour; check before deleting",
        "differs": "`{name}` differs from {version}`{upstream}` in {count}: {shown}{more}; check what it adds "
        "before deleting",
    },
    planned_in=f"{PLAN} (_Analyzer.classify_install, classify_review, removal_obstacle)",
    doc="""
    ## What it does
    Reports a statement that replaces an FSDP2 private symbol when the replacement is a wrapper that calls
    the original, carries other logic than upstream, or targets a symbol the catalog has no upstream copy
    of. The message names the differences from upstream. Only names some supported torch release defines
    are overrides: a new attribute (a flag, a saved original under a new name) and the restore of a
    saved original are not reported; an install that is restored says so (`scoped`).

    ## Why
    Such an override may add behaviour native FSDP2 lacks; deleting it without reading it could change
    training. Never fixed.

    ## Example
    ```python
    def _post_backward(self, *args, **kwargs):
        _log_memory()
        return _orig_post_backward(self, *args, **kwargs)

    FSDPParamGroup.post_backward = _post_backward  # FSU101: wraps the original
    ```
    """,
)

NATIVE_PATH_TOO_OLD = declare(
    "FSU102",
    "native-path-too-old",
    category="review",
    fix="none",
    phase="file",
    summary="The target torch release's native FSDP2 does not serve the device on this path yet",
    messages="`{name}` is upstream `{target}` plus NPU tweaks, but native FSDP2 in torch {target_torch} does "
    "not serve non-CUDA devices there; removable from torch {since}",
    planned_in=f"{PLAN} (_Analyzer.removal_obstacle)",
    doc="""
    ## What it does
    Reports an override that would be removable (FSU001), when in the target torch version native FSDP2
    does not serve non-CUDA devices on this path (for example no PrivateUse1 kernel for
    `all_gather_copy_in` before torch 2.8, or CUDA streams hard-coded in `finalize_backward` before 2.7).

    ## Why
    Removing it would send the NPU down a CUDA-only path. Remove it once the project requires the version
    the message names (`--target-torch`, or `target-torch` in the configuration).

    ## Example
    ```python
    # with target-torch = "2.7"
    torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in  # FSU102: removable from torch 2.8
    ```
    """,
)

KERNEL_REGISTRATION = declare(
    "FSU103",
    "kernel-registration",
    category="review",
    fix="none",
    phase="file",
    summary='Kernel registered for an FSDP op (`torch.library.impl`, `Library("fsdp", "IMPL")`)',
    messages={
        "default": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; it replaces the kernel every caller "
        "of the op runs: check what it adds",
        "replaces-native": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; native FSDP2 registers its "
        "own PrivateUse1 kernel since torch {since}, which this one replaces: check what it adds",
        "before-native": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; native FSDP2 in torch "
        "{target_torch} has no PrivateUse1 kernel (it has from torch {since})",
    },
    targets="ops",
    planned_in=f"{PLAN} (_Analyzer.plan_other_overrides), fsdp_unpatch.rules.overrides (kernel_registrations)",
    doc="""
    ## What it does
    Reports `@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")`, `lib.impl("op", kernel,
    "PrivateUse1")` on a `torch.library.Library("fsdp", ...)`, and
    `torch.library.register_kernel("fsdp::op", ...)`. The message says whether the target torch has a
    native kernel for that key.

    ## Why
    The registration replaces the kernel that every caller of the FSDP op runs on that dispatch key.
    torch-npu registered one because native FSDP2 had no PrivateUse1 kernel before torch 2.8; from then on
    the registration replaces upstream's own. Never fixed: check what the kernel adds, then delete the
    registration with its function.

    ## Example
    ```python
    lib = torch.library.Library("fsdp", "IMPL")

    @torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")  # FSU103
    def all_gather_copy_in_npu(*args):
        ...
    ```
    """,
)

CODE_OBJECT_SWAP = declare(
    "FSU104",
    "code-object-swap",
    category="review",
    fix="none",
    phase="file",
    summary="`__code__` of an FSDP2 function replaced in place",
    messages="`{spelled}` swaps the code of FSDP2 internal `{target}` in place: every by-name import and saved "
    "original runs the new code too",
    planned_in="fsdp_unpatch.rules.overrides (code_swap)",
    doc="""
    ## What it does
    Reports `X.__code__ = f.__code__` (or its `setattr`) where X is an FSDP2 function.

    ## Why
    The FSDP2 function object itself runs other code. Unlike an assignment it reaches every by-name import
    and every saved original (they are the same object), and it survives `importlib.reload` of the
    patching module. Never fixed: restoring the original code needs the original code object.

    ## Example
    ```python
    _fsdp_collectives.foreach_reduce.__code__ = _my_reduce.__code__  # FSU104
    ```
    """,
)

ENHANCE_PATCH = declare(
    "FSU201",
    "enhance-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="Install site of the NPU enhance patch, kept on purpose",
    messages={
        "default": "`{spelled}`: enhance patch, kept ({why})",
        "configured": "`{spelled}` is declared intentional in the configuration",
    },
    targets="keep",
    planned_in=f"{PLAN} (_Analyzer.classify_install, classify_keep)",
    doc="""
    ## What it does
    Reports the install sites of the enhance patch (FSDPMemCache, the allocate overrides, the
    `foreach_reduce` wrapper, the post-forward / post-backward state handling, installed by
    `_apply_fsdp_enhance_patch`) and the overrides the configuration's `keep` declares intentional.

    ## Why
    They have no native counterpart. They stay byte-identical; this finding never fails a run.

    ## Example
    ```python
    def _apply_fsdp_enhance_patch():
        _fsdp_collectives.DefaultAllGather.allocate = _npu_allocate  # FSU201: kept
    ```
    """,
)

TEST_PATCH = declare(
    "FSU202",
    "test-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="A test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`)",
    messages="`{call}` patches FSDP2 internal `{target}` for the span of a test; reported for information, "
    "never changed",
    planned_in="fsdp_unpatch.rules.overrides (patches_in_tests)",
    doc="""
    ## What it does
    Reports `mock.patch("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce", ...)`,
    `mock.patch.object(FSDPParamGroup, "post_backward", ...)`, `monkeypatch.setattr(...)` and
    `mocker.patch(...)` on an FSDP2 internal.

    ## Why
    They replace the internal only for the span of one test and restore it afterwards, but they depend
    on the internal's name, which a torch upgrade may move. Reported for information (category keep: it
    never fails a run); never changed.

    ## Example
    ```python
    with mock.patch.object(FSDPParamGroup, "post_backward"):  # FSU202
        ...
    ```
    """,
)

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
        yield TEST_PATCH.code, call, TEST_PATCH.message(call=_short(code_of(call)), target=target), target
