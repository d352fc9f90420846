"""A copy with one more line, `torch: object`: a bare declaration makes `torch` local to the whole function,
so every `torch.` in it raises UnboundLocalError. It is no upstream copy, whatever the annotations say."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs bare-torch-declaration


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
