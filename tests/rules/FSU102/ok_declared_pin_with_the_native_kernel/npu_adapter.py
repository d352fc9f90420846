"""The project pins torch 2.8 (requirements.txt), which has the PrivateUse1 kernel: the copy goes (FSU001)."""
import torch


# @upstream ops.fsdp.all_gather_copy_in _adapter_copy_in same-device


torch.ops.fsdp.all_gather_copy_in.default = _adapter_copy_in
torch.ops.fsdp.all_gather_copy_in = _adapter_copy_in
