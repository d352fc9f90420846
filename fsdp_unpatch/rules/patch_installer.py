"""FSU003 (patch-installer): installer function that has nothing left to install."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.file_analysis import FileAnalysis
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.analysis.subjects import InstallerToGo, ModuleSubject, Remains
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(installer: InstallerToGo, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """An installer the planner found left with nothing to do: deleted with the install sites it held.
    Checked even when deselected: its calls (FSU004) require its fix, and the run reads what it removes."""
    from fsdp_unpatch.analysis.planned import Planned

    function = installer.function
    yield Planned(
        PATCH_INSTALLER.code,
        function.name,
        PATCH_INSTALLER.message(name=function.name.value),
        None,
        edits=deletion(analysis, function),
        requires=installer.sites,
        deletes=function.name.value,
    )


def deletion(analysis: ModuleSubject, function: cst.FunctionDef) -> list[Edit]:
    """The function's deletion with its `__all__` entries: `from module import *` must not name it."""
    from fsdp_unpatch.analysis.planned import Edit

    entries = analysis.dunder_all_entries.get(function.name.value, [])
    return [Edit(function), *(Edit(entry) for entry in entries)]


def orphans(remains: Remains, analysis: FileAnalysis, catalog: Catalog, options: Options) -> Iterator[Add]:
    """What an earlier, safe-only fix left of a known patch module's installers (`remains`, handed over by
    the run's linking, `run/orphans.py`): one kept while its calls waited for the unsafe fixes, with nothing
    left in its body, is planned for deletion as before (in a file where a patch may have lived only)."""
    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.file_analysis import Installer
    from fsdp_unpatch.analysis.patterns import top_level_function
    from fsdp_unpatch.analysis.planned import Planned

    if not remains.patch_file:
        return
    for name in remains.module.installers:
        function = top_level_function(analysis.module, name)
        qualified = f"{analysis.module_name}.{name}"
        if function is None or not _is_empty(function):
            continue
        if analysis.exports.lists(name) and name not in analysis.dunder_all_entries:
            continue  # named in an `__all__` built elsewhere than at the top level (or not known): it stays
        if any(i.qualified == qualified for i in analysis.installers):
            continue
        finding = Planned(
            PATCH_INSTALLER.code,
            function.name,
            PATCH_INSTALLER.message("orphan", name=name),
            None,
            edits=deletion(analysis, function),
            deletes=function.name.value,
        )
        yield Add(analysis, finding, installer=Installer(function, qualified, True, finding))


def _is_empty(function: cst.FunctionDef) -> bool:
    import libcst as cst

    from fsdp_unpatch.analysis.blocks import body_statements
    from fsdp_unpatch.analysis.patterns import is_docstring

    return all(
        is_docstring(s) or (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body))
        for s in body_statements(function.body)
    )


PATCH_INSTALLER = declare(
    "FSU003",
    "patch-installer",
    role="installer",
    category="remove",
    fix="safe",
    phase="file",
    summary="Installer function that has nothing left to install",
    messages={
        "default": "`{name}` has nothing left to install once the collectives overrides are gone",
        "orphan": "`{name}` has nothing left to install; delete it and its calls",
    },
    targets="remove",
    exports=("deleted-names",),
    check=check,
    subject="installer",
    also={"remains": orphans},
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch"), shape("patch-part")),
    feeds_others=True,
    doc="""
    ## What it does
    Reports the function that installed the collectives overrides (`_apply_fsdp_patch` in torch-npu) once
    every override it installed is removed. The fix deletes it, its entries in the module's `__all__` (so that
    `from module import *` still works), and its calls and imports in the files of the run (FSU004).

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

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _finalize_and_log(self):
    print("finalize")


def install():
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


def install():
    FSDPParamGroup.finalize_backward = _adapter_finalize_backward
"""
    )
]
