"""From torch 2.8 native FSDP2 has a PrivateUse1 kernel for all_gather_copy_in: the copy goes (FSU001)."""
import torch


# @upstream ops.fsdp.all_gather_copy_in _npu_all_gather_copy_in same-device


torch.ops.fsdp.all_gather_copy_in.default = _npu_all_gather_copy_in
torch.ops.fsdp.all_gather_copy_in = _npu_all_gather_copy_in
