"""The installer has nothing left to install, but a registry in another file names it, so it stays (FSU003
says why), and with it the guard that names the replacement: the replacement stays, and so does the test that
asserts it is installed."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward@2.10.0 _npu_finalize_backward npu-stream


def install():
    if FSDPParamGroup.finalize_backward is not _npu_finalize_backward:
        FSDPParamGroup.finalize_backward = _npu_finalize_backward
