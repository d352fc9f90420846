"""Assigns into the project's own modules through the aliases `compat` binds: nothing of FSDP2."""
from .compat import defaults, settings_module


def configure():
    defaults.FSDP_RESHARD = False
    settings_module.FSDPModule = None
