"""A function declares `dist` global and rebinds it: once it has run, the copy reads what it assigned."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _reset():
    global dist
    dist = None


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
