"""FSU201 (enhance-patch): install site of the NPU enhance patch, kept on purpose."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.collect import RawInstall
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Site
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.verdicts import SiteVerdict


def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A site of the enhance patch, or one the configuration keeps."""
    if site.verdict is not None and site.verdict.kind in ("enhance", "configured_keep"):
        yield report(site.install, site.verdict)


ENHANCE_PATCH = declare(
    "FSU201",
    "enhance-patch",
    role="enhance-installer",
    category="keep",
    fix="none",
    phase="file",
    summary="Install site of the NPU enhance patch, kept on purpose",
    messages={
        "default": "`{spelled}`: enhance patch, kept ({why})",
        "configured": "`{spelled}` is declared intentional in the configuration",
    },
    targets="keep",
    check=check,
    subject="site",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
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

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def allocate_from(pool, size):
    return pool.get(tuple(size))


print(_fsdp_collectives.DefaultAllGather.allocate)
"""
    )
]
INVALID = [
    Invalid(
        """import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives

_pool = {}


def _pooled_allocate(self, size, *, dtype, device):
    return _pool.setdefault((tuple(size), dtype), torch.empty(*size, dtype=dtype, device=device))


def _apply_fsdp_enhance_patch():
    _fsdp_collectives.DefaultAllGather.allocate = _pooled_allocate
"""
    )
]


def report(site: RawInstall, verdict: SiteVerdict) -> Planned:
    """A site of the enhance patch, or one the configuration keeps."""
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.semantic.text import short

    spelled = short(verdict.site)
    if verdict.kind == "configured_keep":
        message = ENHANCE_PATCH.message("configured", spelled=spelled)
    else:
        assert verdict.kind == "enhance" and verdict.entry is not None
        message = ENHANCE_PATCH.message(spelled=spelled, why=verdict.entry.why.rstrip("."))
    return Planned(ENHANCE_PATCH.code, site.report, message, verdict.target)
