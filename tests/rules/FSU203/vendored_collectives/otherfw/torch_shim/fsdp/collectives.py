"""Another framework's shim: its own copy of FSDP2's collective ops for torch releases that lack them.
It defines the `fsdp` ops, then registers its own kernels for them: definitions, not overrides."""
from typing import List

import torch
from torch.library import Library

lib = Library("fsdp", "FRAGMENT")

lib.define(
    "all_gather_copy_in(Tensor[] all_gather_inputs, SymInt[] inp_split_sizes, SymInt all_gather_input_numel, "
    "SymInt world_size, SymInt rank, ScalarType dtype, Device device) -> (Tensor, Tensor)"
)
lib.define("split_with_sizes_copy(Tensor all_gather_output, SymInt[] all_gather_input_split_sizes, int dim=0, *, Tensor(a!)[] out) -> ()")
torch.library.define("fsdp::chunk_cat", "(Tensor[] tensors, int dim, int num_chunks, *, Tensor(a!) out) -> ()")


@torch.library.impl(lib, "all_gather_copy_in", "Meta")
def copy_in_meta(inputs, split_sizes, numel, world_size, rank, dtype, device):
    output = torch.empty((numel * world_size,), dtype=dtype, device="meta")
    return output.narrow(0, numel * rank, numel), output


@torch.library.impl(lib, "all_gather_copy_in", "CUDA")
@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")
def copy_in_device(inputs: List[torch.Tensor], split_sizes, numel, world_size, rank, dtype, device):
    output = torch.empty((numel * world_size,), dtype=dtype, device=device)
    own = output.narrow(0, numel * rank, numel)
    torch._foreach_copy_(torch.split(own, split_sizes), inputs)
    return own, output


@torch.library.impl(lib, "split_with_sizes_copy", "CUDA")
@torch.library.impl(lib, "split_with_sizes_copy", "PrivateUse1")
def split_copy(output, split_sizes, dim=0, *, out):
    torch.split_with_sizes_copy(output, split_sizes, dim=dim, out=out)


@torch.library.impl("fsdp::chunk_cat", ["CUDA", "PrivateUse1"])
def chunk_cat(tensors, dim, num_chunks, *, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)


lib.impl("chunk_cat", chunk_cat, "Meta")
