"""One copy of all_gather_copy_in serves twice: as the op packet's override and as the PrivateUse1 kernel.
The assignments go (FSU001); the function stays with its registration (FSU103, review)."""
import torch

lib = torch.library.Library("fsdp", "IMPL")


@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")
# @upstream ops.fsdp.all_gather_copy_in _patched_all_gather_copy_in same-device


torch.ops.fsdp.all_gather_copy_in.default = _patched_all_gather_copy_in
torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in
