"""As by attribute access from `torch`, through `dist`, an alias of a package above the module: the copy's
import of `_fsdp_param` becomes a plain import of that module."""
from typing import cast

import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    dist.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs


def states():
    return torch.tensor([len(dist.fsdp._fully_shard._fsdp_param.ShardedState)])
