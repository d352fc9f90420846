"""foreach_reduce patched in _fsdp_collectives only: FSDPParamGroup calls its own by-name copy."""
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _npu_foreach_reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _npu_foreach_reduce
