"""A copy that waits on `torch.cuda.current_stream()`: another device's stream, not the NPU's."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward cuda-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
