"""The install site goes (FSU001), but the replacement is also registered by name: it stays."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize_backward npu-stream


HOOKS = {"finalize_backward": _npu_finalize_backward}

FSDPParamGroup.finalize_backward = _npu_finalize_backward
