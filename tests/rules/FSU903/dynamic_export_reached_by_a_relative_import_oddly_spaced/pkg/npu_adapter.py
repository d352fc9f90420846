"""The NPU adapter: its installer goes with the override it installs."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def apply_npu_collectives_patch():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
