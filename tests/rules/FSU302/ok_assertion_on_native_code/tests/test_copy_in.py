import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def test_native_copy_in_is_registered():
    assert torch.ops.fsdp.all_gather_copy_in is not None
    assert _fsdp_collectives.foreach_all_gather is not None
