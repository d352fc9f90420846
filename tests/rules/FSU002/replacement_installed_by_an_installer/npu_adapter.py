"""The replacement is referred to only by its install site: it goes with it."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
    print("NPU collectives patch installed")
