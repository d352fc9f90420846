"""Delete the FSDP2 collectives overrides native FSDP2 now covers: install sites (FSU001), replacement
functions (FSU002), the installer left with nothing to do (FSU003) and its calls in the module (FSU004)."""

from __future__ import annotations

from fsdp_unpatch.rules.collective_override import COLLECTIVE_OVERRIDE
from fsdp_unpatch.rules.installer_call import INSTALLER_CALL
from fsdp_unpatch.rules.override_replacement import OVERRIDE_REPLACEMENT
from fsdp_unpatch.rules.patch_installer import PATCH_INSTALLER

from ._base import UnpatchCodemod


class RemoveCollectiveOverrides(UnpatchCodemod):
    DESCRIPTION = "Delete FSDP2 collectives overrides that native FSDP2 now covers."
    CODES = frozenset(
        rule.code for rule in (COLLECTIVE_OVERRIDE, OVERRIDE_REPLACEMENT, PATCH_INSTALLER, INSTALLER_CALL)
    )
