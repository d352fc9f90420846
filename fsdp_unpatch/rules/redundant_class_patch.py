"""FSU402 (redundant-class-patch): the same class attribute is patched again through another module."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

REDUNDANT_CLASS_PATCH = declare(
    "FSU402",
    "redundant-class-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="The same class attribute is patched again through another module",
    messages="`{later}` is the same class attribute as `{earlier}` (line {line}): patching it again is redundant",
    doc="""
    ## What it does
    Reports the second of two assignments that set the same attribute of an FSDP2 class through two
    modules, such as `_fsdp_collectives.DefaultAllGather.allocate = f` and
    `_fsdp_param_group.DefaultAllGather.allocate = f`.

    ## Why
    The class was imported by name, and a class is shared, not copied: the second assignment is redundant
    (harmless; information only).

    ## Example
    ```python
    _fsdp_collectives.DefaultAllGather.allocate = _allocate
    _fsdp_param_group.DefaultAllGather.allocate = _allocate  # FSU402
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _allocate
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _allocate
_fsdp_param_group.DefaultAllGather.allocate = _allocate
"""
    )
]
