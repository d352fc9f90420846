"""The nested fallbacks again, with torch 2.5 allowed: there FSDP2 lives in its older home, the first import
fails and the handler runs, so what the copy calls depends on the release: no proof (`review`)."""
from typing import cast

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState

try:
    from torch.distributed.fsdp._fully_shard._fsdp_common import compiled_autograd_enabled
except ImportError:
    try:
        from torch.distributed._composable.fsdp._fsdp_common import compiled_autograd_enabled
    except ImportError:

        def compiled_autograd_enabled():
            return True


# @upstream _fsdp_collectives._get_param_all_gather_inputs@2.11.0 _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
