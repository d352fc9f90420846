"""The project allows torch 2.6 and 2.7, where native all_gather_copy_in has no PrivateUse1 kernel: the copy
stays until the project's floor is 2.8."""
import torch


# @upstream ops.fsdp.all_gather_copy_in _adapter_copy_in same-device


torch.ops.fsdp.all_gather_copy_in.default = _adapter_copy_in
torch.ops.fsdp.all_gather_copy_in = _adapter_copy_in
