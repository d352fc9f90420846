"""The override rules: everything about an override itself (FSU0xx remove, FSU1xx review, FSU2xx keep).

The install site, the replacement it installs, the installer and its calls, the same-device special case,
and the overrides that stay (reviewed or kept). Planned per file in `analysis/plan.py` and
`rules/overrides.py` (kernel registrations, `__code__` swaps, test patches), and in `rules/orphans.py`.
"""

from __future__ import annotations

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
        "freed": "`{name}` {proof}; delete it with its install sites and {named_in}, the only other code that names it",
        "orphan": "`{name}` is the upstream FSDP2 function plus the NPU tweak only, and nothing installs it "
        "any more; delete it",
    },
    targets="remove",
    planned_in=f"{PLAN} (_Analyzer.plan_replacements, plan_freed_replacements), fsdp_unpatch.rules.orphans",
    exports=("deleted-names",),
    doc="""
    ## What it does
    Reports a function that is the upstream FSDP2 function plus the known NPU tweaks, when nothing in the
    scanned files refers to it once its install sites are gone (or, in a known patch module, nothing
    installs it any more). A use inside code the same fix deletes (the installer's guard
    `if X.f is not _patched_f:`) does not count: the deletion then requires that code's deletion. The fix
    deletes the definition and the imports only it used.

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
    messages={
        "default": "`{name}` is upstream `{target}` plus NPU tweaks, but native FSDP2 in torch {target_torch} "
        "does not serve non-CUDA devices there; removable from torch {since}",
        # a declared range: every release it allows must be safe
        "range": "`{name}` is upstream `{target}` plus NPU tweaks, but native FSDP2 in torch {target_torch}, the "
        "lowest release the project allows (torch {lowest} to {highest}), does not serve non-CUDA devices there; "
        "raise torch to >= {since} to remove it",
    },
    planned_in=f"{PLAN} (_Analyzer.removal_obstacle)",
    doc="""
    ## What it does
    Reports an override that would be removable (FSU001), when in the target torch version native FSDP2
    does not serve non-CUDA devices on this path (for example no PrivateUse1 kernel for
    `all_gather_copy_in` before torch 2.8, or CUDA streams hard-coded in `finalize_backward` before 2.7).

    ## Why
    Removing it would send the NPU down a CUDA-only path. Remove it once the project requires the version
    the message names (its declared torch, `--target-torch`, or `target-torch` in the configuration). A
    declared range (`torch>=2.6`) is only as safe as its lowest release: the message names the floor to
    raise it to.

    ## Example
    ```python
    # with target-torch = "2.7", or a project that declares torch==2.7.1
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
    `foreach_reduce` wrapper, the post-forward / post-backward state handling, and before torch 2.9 the
    `allocate_memory` override and the `foreach_all_gather` wrapper, installed by
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
    `mocker.patch(...)` on an FSDP2 internal, on either package path (`torch.distributed._composable.fsdp`
    of torch 2.4-2.5 too, and the classes its root re-exports: `...fsdp.FSDPModule`), and an FSDP2
    module replaced in `sys.modules` by a test (`monkeypatch.setitem(sys.modules, ...)`,
    `mock.patch.dict(sys.modules, {...})`, or `sys.modules[...] = m` in a test module).

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
