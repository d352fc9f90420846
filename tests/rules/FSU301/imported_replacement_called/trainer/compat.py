"""Helpers that used torch-npu's patch functions directly."""
from torch_npu.distributed.fsdp import _add_fsdp_patch as npu_patch
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in as npu_copy_in


def copy_in_shard(inputs, output, split_sizes, numel, rank):
    return npu_copy_in(inputs, output, split_sizes, numel, rank)


def gather_inputs(fsdp_params):
    return npu_patch._patched_get_param_all_gather_inputs(fsdp_params)
