"""The project declares its unshard wrapper intentional (`keep` in its configuration)."""
import torch
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

_original_unshard = FSDPParamGroup.unshard


def _unshard_with_log(self, *args, **kwargs):
    print("allocated before unshard", torch.npu.memory_allocated())
    return _original_unshard(self, *args, **kwargs)


FSDPParamGroup.unshard = _unshard_with_log
