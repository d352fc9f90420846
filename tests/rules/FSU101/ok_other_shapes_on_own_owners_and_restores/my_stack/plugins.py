"""Own classes patched in the same shapes, and FSDP2 originals put back (restores)."""
import sys

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
import torch.distributed.fsdp._fully_shard._fsdp_collectives as fc

_saved_finalize = FSDPParamGroup.finalize_backward
_saved_reduce = fc.foreach_reduce


class Trainer:
    def step(self):
        return 1


def _step(self):
    return 2


def install_over(owner, name):
    def decorate(fn):
        setattr(owner, name, fn)
        return fn

    return decorate


Trainer.step, Trainer.other = _step, _step
vars(Trainer)["step"] = _step
sys.modules["my_stack.plugins"].step = _step


@install_over(Trainer, "step")
def _another_step(self):
    return 3


def restore():
    FSDPParamGroup.finalize_backward, fc.foreach_reduce = _saved_finalize, _saved_reduce
    vars(fc)["foreach_reduce"] = _saved_reduce
    for owner, name, fn in [(FSDPParamGroup, "finalize_backward", _saved_finalize), (Trainer, "step", _step)]:
        setattr(owner, name, fn)
    fc.__dict__["_npu_flag"] = True
