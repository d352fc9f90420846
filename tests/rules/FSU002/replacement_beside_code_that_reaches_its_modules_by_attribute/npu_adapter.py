"""The copy goes with its install site, but `is_sharded` stays and reaches `_fsdp_param` by attribute access
from `import torch`: only the copy's import loaded that module, so a plain import of it takes its place (deleting
it made `is_sharded` raise AttributeError)."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs


def is_sharded(fsdp_param):
    return fsdp_param.sharded_state == torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState.SHARDED
