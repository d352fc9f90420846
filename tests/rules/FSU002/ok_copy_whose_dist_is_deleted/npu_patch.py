"""The module deletes `dist`: the copy raises NameError, upstream does not."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

del dist


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
