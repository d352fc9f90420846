"""A copy of torch 2.11's function, which calls `compiled_autograd_enabled`. FSDP2 defines that name in
torch 2.6 to 2.11 only; every release the project allows has it, so the fallback never runs and the copy
calls FSDP2's function: proven."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState

try:
    from torch.distributed.fsdp._fully_shard._fsdp_common import compiled_autograd_enabled
except ImportError:

    def compiled_autograd_enabled():
        return True


# @upstream _fsdp_collectives._get_param_all_gather_inputs@2.11.0 _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
