"""FSU102 (native-path-too-old): the target torch release's native FSDP2 does not serve the device on this path yet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.collect import RawInstall
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Site
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.verdicts import SiteVerdict


def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A proven copy that the target torch cannot do without yet."""
    if site.verdict is not None and site.verdict.kind == "too_old":
        yield report(site.install, site.verdict)


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
    check=check,
    subject="site",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
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


def report(site: RawInstall, verdict: SiteVerdict) -> Planned:
    """A proven copy the target torch cannot do without yet: the release it needs."""
    from fsdp_unpatch.analysis.planned import Planned

    assert verdict.kind == "too_old" and verdict.entry is not None and verdict.comparison is not None
    releases = verdict.releases
    message = NATIVE_PATH_TOO_OLD.message(
        "range" if len(releases) > 1 else "default",
        name=verdict.comparison.name,
        target=verdict.entry.id,
        target_torch=verdict.target_torch,
        since=verdict.since,
        lowest=releases[0],
        highest=releases[-1],
    )
    return Planned(NATIVE_PATH_TOO_OLD.code, site.report, message, verdict.target)
