"""`dist` is the project's module or torch's, as an environment variable says: not proven."""
import torch
import os

if os.environ.get('NPU_DIST'):
    import npu_vendor.dist as dist
else:
    import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
