"""Delete the FSDP2 collectives overrides native FSDP2 now covers: install sites (FSU001), replacement
functions (FSU002), the installer left with nothing to do (FSU003) and its calls in the module (FSU004)."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import with_role

from ._base import UnpatchCodemod


class RemoveCollectiveOverrides(UnpatchCodemod):
    DESCRIPTION = "Delete FSDP2 collectives overrides that native FSDP2 now covers."
    CODES = frozenset(
        with_role(role).code for role in ("proven-override", "replacement", "installer", "installer-call")
    )
