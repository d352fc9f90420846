"""A literal name is an ordinary install site (FSU101 here); a computed name on the project's own class, or
on an object the analysis cannot name, is not an FSDP2 override."""
import functools

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


class Trainer:
    def step(self):
        return 1


def _traced(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        print("enter", method.__name__)
        return method(*args, **kwargs)

    return wrapper


def install_tracing(obj, names=("step",)):
    setattr(FSDPParamGroup, "post_backward", _traced(FSDPParamGroup.post_backward))
    for name in names:
        setattr(Trainer, name, _traced(getattr(Trainer, name)))
        setattr(obj, name, _traced(getattr(obj, name)))
