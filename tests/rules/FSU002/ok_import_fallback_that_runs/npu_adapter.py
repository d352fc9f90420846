"""The same copy, but `_fsdp_common` has no `cast` on the target torch (only torch 2.4-2.6 import it
there): the import fails, the module's own fallback is what the copy calls, and that is not upstream's
`typing.cast`. Not proven."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState

try:
    from torch.distributed.fsdp._fully_shard._fsdp_common import cast
except ImportError:

    def cast(kind, value):
        return value.contiguous()


# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_get_param_all_gather_inputs same-device


def install():
    _fsdp_collectives._get_param_all_gather_inputs = _npu_get_param_all_gather_inputs
