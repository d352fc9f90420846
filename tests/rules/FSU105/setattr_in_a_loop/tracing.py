"""Wraps several FSDPParamGroup hooks in a loop: which internals are overridden is known only at run time."""
import functools

from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _traced(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        print("enter", method.__name__)
        return method(*args, **kwargs)

    return wrapper


def install_tracing(names=("pre_backward", "post_backward")):
    for name in names:
        setattr(FSDPParamGroup, name, _traced(getattr(FSDPParamGroup, name)))


def install_collective_tracing(prefix):
    setattr(_fsdp_collectives, f"{prefix}_all_gather", _traced(_fsdp_collectives.foreach_all_gather))
