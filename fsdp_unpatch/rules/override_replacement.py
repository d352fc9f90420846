"""FSU002 (override-replacement): replacement function that copies the upstream FSDP2 function with only the NPU tweak."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

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
    planned_in="fsdp_unpatch.analysis.replacements (plan_replacements, plan_freed_replacements), fsdp_unpatch.rules.orphans",
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
