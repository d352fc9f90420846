"""FSU003 (patch-installer): installer function that has nothing left to install."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

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
    planned_in="fsdp_unpatch.analysis.installers (plan_installers), fsdp_unpatch.rules.orphans",
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
