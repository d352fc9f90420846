"""The copy adds a synchronisation beside the same-device tweak: it is no longer upstream plus the tweak,
so it is reviewed (FSU101), not removed."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs extra-sync


_fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
