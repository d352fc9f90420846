"""Collapse the same-device `non_blocking=True` special case into the native `torch._foreach_copy_` (FSU005)."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import with_role

from ._base import UnpatchCodemod


class CollapseSameDeviceForeachCopy(UnpatchCodemod):
    DESCRIPTION = "Collapse same-device non_blocking foreach copies into the native call."
    CODES = frozenset({with_role("same-device-copy").code})
