"""torch 2.7 has no PrivateUse1 kernel for all_gather_copy_in: the copy cannot go yet."""
import torch


# @upstream ops.fsdp.all_gather_copy_in _npu_all_gather_copy_in same-device


torch.ops.fsdp.all_gather_copy_in.default = _npu_all_gather_copy_in
torch.ops.fsdp.all_gather_copy_in = _npu_all_gather_copy_in
