"""A stack's overrides, each installed without a plain `owner.name = f` statement."""
import importlib
import sys

import torch.distributed.fsdp._fully_shard._fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _quiet_gather(*args, **kwargs):
    return None


def _quiet_reduce(*args, **kwargs):
    return None


def _skip_hook(self, *args, **kwargs):
    return None


def override_on(owner, name):
    def decorate(fn):
        setattr(owner, name, fn)
        return fn

    return decorate


# several targets unpacked from one tuple
FSDPParamGroup.finalize_backward, collectives.foreach_all_gather = _skip_hook, _quiet_gather

# stores through the owner's namespace
vars(collectives)["foreach_reduce"] = _quiet_reduce
FSDPParamGroup.__dict__["pre_backward"] = _skip_hook

# owners looked up at run time
sys.modules["torch.distributed.fsdp._fully_shard._fsdp_collectives"].foreach_all_gather = _quiet_gather
importlib.import_module("torch.distributed.fsdp._fully_shard._fsdp_collectives").foreach_reduce = _quiet_reduce
getattr(sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param_group"], "FSDPParamGroup").post_backward = _skip_hook
setattr(sys.modules["torch.distributed.fsdp._fully_shard._fsdp_collectives"], "foreach_reduce", _quiet_reduce)


# a decorator handed the owner and the attribute's name
@override_on(FSDPParamGroup, "post_forward")
def _no_post_forward(self, *args, **kwargs):
    return args
