"""The module rebinds `isinstance`: the copy calls the module's function, not the builtin."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
import functools

isinstance = functools.partial(isinstance)


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
