"""The module's `dist` is the project's; a function's own import of torch's is a local of that function."""
import torch
import npu_vendor.dist as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _other():
    import torch.distributed as dist

    return dist


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
