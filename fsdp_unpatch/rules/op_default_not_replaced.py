"""FSU403 (op-default-not-replaced): an op packet `torch.ops.<ns>.<op>` is replaced, its `.default` overload is not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.patched import Patched
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Patches
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def packets_without_default(patched: Iterable[Patched]) -> list[tuple[Patched, str]]:
    """(site, message) for each op packet replaced whose `.default` the file never assigns (its first site)."""
    from fsdp_unpatch.analysis.patched import op_parts

    packets: dict[str, Patched] = {}
    defaults: set[str] = set()
    for site in patched:
        packet, default = op_parts(site.target)
        if packet is not None and default:
            defaults.add(packet)
        elif packet is not None:
            packets.setdefault(packet, site)
    return [
        (site, OP_DEFAULT_NOT_REPLACED.message(packet=packet))
        for packet, site in packets.items()
        if packet not in defaults
    ]


def check(patches: Patches, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A packet replaced without its `.default`; moot when the fix deletes the site."""
    from fsdp_unpatch.analysis.planned import Planned

    for site, message in packets_without_default(patches.patched):
        moot_with = patches.removed_sites.get(id(site.install.removable))
        yield Planned(OP_DEFAULT_NOT_REPLACED.code, site.install.report, message, site.target, moot_with=moot_with)


OP_DEFAULT_NOT_REPLACED = declare(
    "FSU403",
    "op-default-not-replaced",
    category="review",
    fix="none",
    phase="file",
    summary="An op packet `torch.ops.<ns>.<op>` is replaced, its `.default` overload is not",
    messages="`torch.{packet}` is replaced but its `.default` overload is not: callers of "
    "`torch.{packet}.default` (traced and compiled graphs) still run the original op",
    check=check,
    subject="patches",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    doc="""
    ## What it does
    Reports the replacement of an op packet `torch.ops.<ns>.<op>` when the file does not also replace its
    `.default` overload; not when the fix deletes that install site (FSU001): then it is moot.

    ## Why
    Code that calls `torch.ops.fsdp.all_gather_copy_in.default(...)`, and graphs traced or compiled before
    the patch, reach the overload, not the packet: they keep running the original op. Replace `.default`
    as well, before the packet (see FSU404).

    ## Example
    ```python
    torch.ops.fsdp.all_gather_copy_in = _my_copy_in  # FSU403: `.default` still runs the original
    ```
    """,
)

VALID = [
    Valid(
        """import torch


def _chunk_cat(tensors, dim, num_chunks, *, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)


torch.ops.fsdp.chunk_cat.default = _chunk_cat
torch.ops.fsdp.chunk_cat = _chunk_cat
"""
    )
]
INVALID = [
    Invalid(
        """import torch


def _chunk_cat(tensors, dim, num_chunks, *, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)


torch.ops.fsdp.chunk_cat = _chunk_cat
"""
    )
]
