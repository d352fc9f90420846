"""Every safe fsdp-unpatch fix for one module, as `fsdp-unpatch fix` applies it to a single file."""

from __future__ import annotations

from ._base import UnpatchCodemod


class Unpatch(UnpatchCodemod):
    DESCRIPTION = "Apply every safe fsdp-unpatch fix to the module."
    CODES = frozenset({"FSU001", "FSU002", "FSU003", "FSU004", "FSU005"})
