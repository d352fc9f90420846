"""The installer is exported by `__all__`: it goes with its entries, so that `from npu_adapter import *` still
works and one fix reaches the end (it used to stay, emptied, and a second fix deleted it but left `__all__`)."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

__all__ = ("apply_npu_collectives_patch", "VERSION")
__all__ += ["apply_npu_collectives_patch"]
__all__.append("apply_npu_collectives_patch")

VERSION = "1"


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


def apply_npu_collectives_patch():
    FSDPParamGroup.finalize_backward = _npu_finalize_backward
