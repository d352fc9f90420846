"""A flag no torch release defines, and the original saved under a new name: neither is an override."""
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam

FSDPParam._npu_adapter_seen = True
_fsdp_collectives._npu_saved_foreach_reduce = _fsdp_collectives.foreach_reduce
