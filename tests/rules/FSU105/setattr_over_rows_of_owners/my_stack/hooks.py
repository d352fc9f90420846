"""Overrides installed by one `setattr` over rows of (owner, name, function)."""
import torch.distributed.fsdp._fully_shard._fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _skip_hook(self, *args, **kwargs):
    return None


def _quiet_reduce(*args, **kwargs):
    return None


def install():
    for owner, name, fn in [(FSDPParamGroup, "pre_backward", _skip_hook), (collectives, "foreach_reduce", _quiet_reduce)]:
        setattr(owner, name, fn)
