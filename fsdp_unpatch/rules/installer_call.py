"""FSU004 (installer-call): call or import of a removed patch installer."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

INSTALLER_CALL = declare(
    "FSU004",
    "installer-call",
    category="remove",
    fix="safe",
    phase="run",
    summary="Call or import of a removed patch installer",
    messages="`{call}` calls an installer that is removed",
    targets="remove",
    planned_in="fsdp_unpatch.analysis.installers (plan_installer_calls), fsdp_unpatch.run.linking",
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

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _finalize_and_log(self):
    print("finalize")


def install():
    FSDPParamGroup.finalize_backward = _finalize_and_log


install()
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


install()
"""
    )
]
