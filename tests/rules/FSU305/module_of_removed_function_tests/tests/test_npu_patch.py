"""Tests of torch-npu's collectives patch functions only."""
import torch
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in, _patched_get_param_all_gather_inputs


def test_patched_inputs_of_no_parameters():
    assert _patched_get_param_all_gather_inputs([]) == []


def test_copy_in_is_patched():
    assert torch.ops.fsdp.all_gather_copy_in is _patched_all_gather_copy_in


if __name__ == "__main__":
    test_patched_inputs_of_no_parameters()
