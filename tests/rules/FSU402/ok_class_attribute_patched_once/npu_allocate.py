from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _npu_allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _npu_allocate
