"""The installer is exported by `__all__`: deleting it would break `from npu_adapter import *` (and any importer
outside the project), so it stays, emptied of the override that goes."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

__all__ = ["apply_npu_collectives_patch"]


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def apply_npu_collectives_patch():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
