"""Logs memory after every post-backward: a wrapper that calls the original adds behaviour."""
import torch
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

_original_post_backward = FSDPParamGroup.post_backward


def _post_backward_with_log(self, *args, **kwargs):
    result = _original_post_backward(self, *args, **kwargs)
    print("allocated", torch.npu.memory_allocated())
    return result


FSDPParamGroup.post_backward = _post_backward_with_log
