"""The copy is proven, but the name is bound again through `globals()` before the install runs: what gets
installed is the no-op, not the copy, so deleting the install would change what runs."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


globals()["_npu_finalize_backward"] = lambda self: None  # the NPU runtime syncs by itself here
FSDPParamGroup.finalize_backward = _npu_finalize_backward
