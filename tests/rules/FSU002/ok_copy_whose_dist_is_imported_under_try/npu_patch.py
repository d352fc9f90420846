"""`dist` is the project's module when it imports, torch's otherwise: not proven to be torch.distributed."""
import torch
try:
    import npu_vendor.dist as dist
except ImportError:
    import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
