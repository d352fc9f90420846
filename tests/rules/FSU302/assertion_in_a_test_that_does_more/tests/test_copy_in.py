import torch
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in


def test_copy_in_places_the_rank_slice():
    assert torch.ops.fsdp.all_gather_copy_in is _patched_all_gather_copy_in
    output = torch.zeros(4)
    assert output.sum() == 0
