"""FSU002 (override-replacement): replacement function that copies the upstream FSDP2 function with only the NPU tweak."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, cast

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.file_analysis import FileAnalysis
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Remains, Replacement
    from fsdp_unpatch.catalog import Catalog, Target
    from fsdp_unpatch.config.options import Options


def check(replacement: Replacement, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A replacement the planner decided goes with its install sites (and the fixes that delete its other
    uses): deleted with them. Checked even when deselected: what the run removes is read from it."""
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.fingerprint.wording import proof

    name, sites, also = replacement.name, replacement.sites, replacement.also
    first_target = sites[0][1].target
    matches = (
        proof(_upstream(catalog.targets[first_target]), replacement.proof, options.proof_releases)
        if replacement.proof and first_target is not None and first_target in catalog.targets
        else "is the upstream FSDP2 function plus the NPU tweak only"
    )
    yield Planned(
        OVERRIDE_REPLACEMENT.code,
        replacement.function.name,
        OVERRIDE_REPLACEMENT.message("freed", name=name, proof=matches, named_in=_spelled(analysis, also))
        if also
        else OVERRIDE_REPLACEMENT.message(name=name, proof=matches),
        first_target,
        edits=[Edit(replacement.function)],
        requires=[p for _, p in sites] + also,
        deletes=replacement.function.name.value,
    )


def _upstream(target: Target) -> str:
    return target.fingerprint or target.id


def _spelled(analysis: ModuleSubject, fixes: list[Planned]) -> str:
    """What `fixes` delete, for a message: `_apply_fsdp_patch` (a function by its name), else the code."""
    import libcst as cst

    from fsdp_unpatch.semantic.text import short

    nodes = [cast(cst.CSTNode, p.node) for p in fixes]  # install sites: libcst nodes
    return ", ".join(f"`{n.value}`" if isinstance(n, cst.Name) else f"`{short(analysis.code(n), 40)}`" for n in nodes)


def orphans(remains: Remains, analysis: FileAnalysis, catalog: Catalog, options: Options) -> Iterator[Add]:
    """What an earlier, safe-only fix left of a known patch module's replacements (`remains`, handed over by
    the run's linking, `run/orphans.py`): `fix` without `--unsafe-fixes` deletes the install sites but keeps
    a replacement while tests still name it, and the next run sees no install site that ties it to its
    target. A module-level function with the name of one of the module's replacements, that nothing in its
    file uses and that is still upstream code plus the NPU tweak, is planned for deletion as before."""
    from fsdp_unpatch import fingerprint
    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.patterns import top_level_function
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.catalog.versions import Version

    installed = remains.installed
    for name, target_id in remains.module.replacements.items():
        function = top_level_function(analysis.module, name)
        target = catalog.targets.get(target_id)
        if function is None or name in analysis.replacements or not _unused(analysis, name) or target is None:
            continue
        if target.category != "remove" or id(function.name) in installed:
            continue
        if analysis.registered_by_decorator(function):
            continue  # a kernel registration (FSU103) that stays
        if target.native_since and options.target_torch < Version.parse(target.native_since):
            continue
        evidence = fingerprint.compare_to_upstream(
            analysis.code(function),
            _upstream(target),
            scope=_scope(analysis),
            original_names=frozenset({target.id.rsplit(".", 1)[-1]}),
        )
        if not evidence.matched or evidence.calls_original:
            continue
        planned = Planned(
            OVERRIDE_REPLACEMENT.code,
            function.name,
            OVERRIDE_REPLACEMENT.message("orphan", name=name),
            target.id,
            edits=[Edit(function)],
            deletes=function.name.value,
        )
        yield Add(analysis, planned, replacement=name)


def _scope(analysis: FileAnalysis):
    """The module's scope from its census (`project/bindings.py`): only names bound once, by an import that
    always runs, are resolved."""
    from fsdp_unpatch.fingerprint.scope import scope_of
    from fsdp_unpatch.project.bindings import census_of

    module = analysis.module_name or "<module>"
    table = analysis.table
    return scope_of(
        census_of(analysis.module.code, module, table.is_package), module, table.bindings, None, table.relink
    )


def _unused(analysis: FileAnalysis, name: str) -> bool:
    return analysis.facts.name_uses[name] == 0 and not analysis.exports.lists(name)


OVERRIDE_REPLACEMENT = declare(
    "FSU002",
    "override-replacement",
    role="replacement",
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
    exports=("deleted-names",),
    check=check,
    subject="replacement",
    also={"remains": orphans},
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch"), shape("patch-part")),
    feeds_others=True,
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

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _finalize_and_log(self):
    print("finalize")


FSDPParamGroup.finalize_backward = _finalize_and_log
"""
    )
]
INVALID = [
    Invalid(
        """import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _adapter_finalize_backward npu-stream


FSDPParamGroup.finalize_backward = _adapter_finalize_backward
"""
    )
]
