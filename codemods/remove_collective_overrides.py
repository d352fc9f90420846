"""Delete the FSDP2 collectives overrides native FSDP2 now covers: install sites (FSU001), replacement
functions (FSU002), the installer left with nothing to do (FSU003) and its calls in the module (FSU004)."""

from __future__ import annotations

from ._base import UnpatchCodemod


class RemoveCollectiveOverrides(UnpatchCodemod):
    DESCRIPTION = "Delete FSDP2 collectives overrides that native FSDP2 now covers."
    CODES = frozenset({"FSU001", "FSU002", "FSU003", "FSU004"})
