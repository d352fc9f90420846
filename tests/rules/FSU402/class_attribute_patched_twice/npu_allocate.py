from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _npu_allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _npu_allocate
_fsdp_param_group.DefaultAllGather.allocate = _npu_allocate
