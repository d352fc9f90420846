"""FSU001 (collective-override): install site of an FSDP2 collectives override that native FSDP2 now covers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.collect import RawInstall
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.catalog import Target
    from fsdp_unpatch.fingerprint import Evidence
    from fsdp_unpatch.semantic.verdicts import SiteVerdict

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


def proof(entry: Target, evidence: Evidence) -> str:
    """ "matches torch 2.9.1 `finalize_backward` up to: ..." for a proven copy."""
    from fsdp_unpatch.fingerprint import short_name

    up_to = f" up to: {'; '.join(evidence.normalisations)}" if evidence.normalisations else " exactly"
    return f"matches torch {evidence.torch_version} `{short_name(entry.fingerprint or entry.id)}`{up_to}"


def report(site: RawInstall, verdict: SiteVerdict) -> Planned:
    """A proven copy: the finding, whose fix deletes the install site."""
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.semantic.text import short

    assert verdict.kind == "proven" and verdict.entry is not None and verdict.comparison is not None
    message = COLLECTIVE_OVERRIDE.message(
        spelled=short(verdict.site),
        target=verdict.target,
        replacement=verdict.comparison.name,
        proof=proof(verdict.entry, verdict.comparison.evidence),
    )
    return Planned(COLLECTIVE_OVERRIDE.code, site.report, message, verdict.target, edits=[Edit(site.removable)])
