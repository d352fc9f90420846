"""Registers an NPU kernel for torch's own `fsdp::all_gather_copy_in`, which this file does not define
(the op it defines is in its own namespace): an override of FSDP2's kernel (FSU103), not a copy."""
import torch
from torch.library import Library

fsdp_lib = Library("fsdp", "IMPL")
npu_lib = Library("npu_fsdp", "DEF")
npu_lib.define("copy_in_stats(Tensor t) -> Tensor")


@torch.library.impl(fsdp_lib, "all_gather_copy_in", "PrivateUse1")
def copy_in_npu(inputs, split_sizes, numel, world_size, rank, dtype, device):
    output = torch.empty((numel * world_size,), dtype=dtype, device=device)
    own = output.narrow(0, numel * rank, numel)
    torch._foreach_copy_(torch.split(own, split_sizes), inputs, non_blocking=True)
    return own, output
