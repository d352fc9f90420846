"""A copy decorated with `@library.impl(...)`, where `library` is the project's own module, not torch's: the
decorator may do anything, so it is compared, not dropped as a kernel registration."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives

from npu_vendor import library

lib = None


@library.impl(lib, "all_gather_copy_in", "PrivateUse1")
# @upstream ops.fsdp.all_gather_copy_in _npu_all_gather_copy_in same-device


def install():
    torch.ops.fsdp.all_gather_copy_in.default = _npu_all_gather_copy_in
