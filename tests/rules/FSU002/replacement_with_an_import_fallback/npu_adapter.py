"""A copy that imports FSDP2's names with a fallback for torch releases without them. On the target torch
(the case's pyproject) every import of the `try` succeeds, so the copy's names are FSDP2's: proven."""
import enum
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives

try:
    from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
except ImportError:  # an old torch: stand-ins, so that the module imports at all

    class ShardedState(enum.Enum):
        SHARDED = enum.auto()
        SHARDED_POST_FORWARD = enum.auto()
        UNSHARDED = enum.auto()

    FSDPParam = object


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
