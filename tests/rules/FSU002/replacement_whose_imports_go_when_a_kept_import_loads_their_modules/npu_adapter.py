"""Code that stays reaches `_fsdp_param` by attribute access, but a kept import of torch's FSDP2 package
loads it anyway (`torch.distributed.fsdp` imports every module of `_fully_shard`): the copy's imports go."""
from typing import cast

import torch
from torch.distributed.fsdp import fully_shard
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs


def shard(module):
    fully_shard(module)
    return torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState.SHARDED
