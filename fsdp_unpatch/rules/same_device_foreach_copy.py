"""FSU005 (same-device-foreach-copy): a same-device special case around `torch._foreach_copy_` that only
adds `non_blocking=True`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import Copy, ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(copy: Copy, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A same-device special case outside the code that stays: collapsed to the native call. Checked even
    when deselected: what its edit covers counts when the run asks whether code the fix leaves still names
    a deleted function (`run/linking.py`)."""
    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.semantic.text import short

    yield Planned(
        SAME_DEVICE_COPY.code,
        copy.node,
        SAME_DEVICE_COPY.message(native=short(analysis.code(copy.native_call))),
        "torch._foreach_copy_",
        edits=[Edit(copy.node, copy.native)],
    )


SAME_DEVICE_COPY = declare(
    "FSU005",
    "same-device-foreach-copy",
    role="same-device-copy",
    category="review",
    fix="unsafe",
    phase="file",
    summary="Same-device special case around `torch._foreach_copy_` that only adds `non_blocking=True`",
    messages="same-device special case only adds `non_blocking=True`; the native `{native}` does the same once "
    "the backend's fast path is device-async (`fsdp-unpatch doctor`)",
    targets="remove",
    check=check,
    subject="copy",
    candidates=(shape("same-device-copy"),),
    feeds_others=True,
    doc="""
    ## What it does
    Reports `if dst[0].device == src[0].device: torch._foreach_copy_(dst, src, non_blocking=True) else:
    torch._foreach_copy_(dst, src)` (and its one-call form) outside the overrides that are removed. The
    fix collapses the branch into the native call; it is applied only with `--unsafe-fixes`. It is never
    reported inside code that stays: a kept or reviewed override, a function any kept installer installs,
    a kernel registration, or the helpers they call (kept code stays byte-identical).

    ## Why
    The special case does what native code does with `torch._foreach_copy_(dst, src)` only once the
    backend's `_foreach_copy_` fast path is device-async (`fsdp-unpatch doctor` checks it), hence review
    and an unsafe fix.

    ## Example
    ```python
    if dst[0].device == src[0].device:  # FSU005: becomes torch._foreach_copy_(dst, src)
        torch._foreach_copy_(dst, src, non_blocking=True)
    else:
        torch._foreach_copy_(dst, src)
    ```
    """,
)

VALID = [
    Valid(
        """import torch


def copy_shards(dst, src):
    torch._foreach_copy_(dst, src)
"""
    )
]
INVALID = [
    Invalid(
        """import torch


def copy_shards(dst, src):
    if dst[0].device == src[0].device:
        torch._foreach_copy_(dst, src, non_blocking=True)
    else:
        torch._foreach_copy_(dst, src)
""",
        fixed="""import torch


def copy_shards(dst, src):
    torch._foreach_copy_(dst, src)
""",
    )
]
