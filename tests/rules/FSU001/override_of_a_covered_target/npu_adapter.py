"""An NPU adapter's collectives patch: upstream's finalize_backward, waiting on the NPU stream by name."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


FSDPParamGroup.finalize_backward = _npu_finalize_backward
