"""FSU404 (op-default-after-packet): `.default` assigned after the op packet was replaced lands on the
replacement function."""

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


def defaults_after_packet(patched: Iterable[Patched]) -> list[tuple[Patched, str]]:
    """(site, message) for each `.default` assigned after its packet was replaced, in source order."""
    from fsdp_unpatch.analysis.patched import op_parts

    packets: set[str] = set()
    found = []
    for site in patched:
        packet, default = op_parts(site.target)
        if packet is not None and not default:
            packets.add(packet)
        elif packet is not None and packet in packets:
            found.append((site, OP_DEFAULT_AFTER_PACKET.message(packet=packet)))
    return found


def check(patches: Patches, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A `.default` assigned after its packet; moot when the fix deletes the site."""
    from fsdp_unpatch.analysis.planned import Planned

    for site, message in defaults_after_packet(patches.patched):
        moot_with = patches.removed_sites.get(id(site.install.removable))
        yield Planned(OP_DEFAULT_AFTER_PACKET.code, site.install.report, message, site.target, moot_with=moot_with)


OP_DEFAULT_AFTER_PACKET = declare(
    "FSU404",
    "op-default-after-packet",
    category="review",
    fix="none",
    phase="file",
    summary="`.default` assigned after the op packet was replaced: it lands on the replacement function",
    messages="`torch.{packet}.default` is assigned after `torch.{packet}` was replaced, so it lands on the "
    "replacement function, not on the op's overload; assign `.default` first",
    check=check,
    subject="patches",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    doc="""
    ## What it does
    Reports `torch.ops.<ns>.<op>.default = f` that comes after `torch.ops.<ns>.<op> = f` in the file; not when
    the fix deletes that install site (FSU001): then the order is moot.

    ## Why
    After `torch.ops.fsdp.op = f`, the statement `torch.ops.fsdp.op.default = f` sets `f.default`, not the
    op's overload, which keeps the original kernel. Assign `.default` first, then the packet (in a chained
    assignment the leftmost target is assigned first: `torch.ops.fsdp.op.default = torch.ops.fsdp.op = f`).

    ## Example
    ```python
    torch.ops.fsdp.all_gather_copy_in = _my_copy_in
    torch.ops.fsdp.all_gather_copy_in.default = _my_copy_in  # FSU404
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
torch.ops.fsdp.chunk_cat.default = _chunk_cat
"""
    )
]
