"""FSU001 (collective-override): install site of an FSDP2 collectives override that native FSDP2 now covers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.collect import RawInstall
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Site
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.verdicts import SiteVerdict


def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A site whose verdict is a proven copy: deleted. Checked even when deselected: the replacement and
    installer deletions (FSU002, FSU003) require its fix."""
    if site.verdict is not None and site.verdict.kind == "proven":
        yield report(site.install, site.verdict, options.proof_releases)


COLLECTIVE_OVERRIDE = declare(
    "FSU001",
    "collective-override",
    role="proven-override",
    category="remove",
    fix="safe",
    phase="file",
    summary="Install site of an FSDP2 collectives override that native FSDP2 now covers",
    messages="`{spelled}` overrides `{target}`, which native FSDP2 now covers (`{replacement}` {proof}); "
    "delete the override",
    targets="remove",
    check=check,
    subject="site",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    feeds_others=True,
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


def report(site: RawInstall, verdict: SiteVerdict, target: Sequence[Version] = ()) -> Planned:
    """A proven copy: the finding, whose fix deletes the install site; its proof names the release of the
    run's `target` the copy matches (`fingerprint/wording.py`)."""
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.fingerprint.wording import proof
    from fsdp_unpatch.semantic.text import short

    assert verdict.kind == "proven" and verdict.entry is not None and verdict.comparison is not None
    message = COLLECTIVE_OVERRIDE.message(
        spelled=short(verdict.site),
        target=verdict.target,
        replacement=verdict.comparison.name,
        proof=proof(verdict.entry.fingerprint or verdict.entry.id, verdict.comparison.evidence, target),
    )
    return Planned(COLLECTIVE_OVERRIDE.code, site.report, message, verdict.target, edits=[Edit(site.removable)])
