"""Written against torch 2.10, migrated to a newer torch. The installer installs only once: the guard names the
replacement too, but the guard goes with the installer, so the replacement goes in the same fix."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward@2.10.0 _npu_finalize_backward npu-stream


def install():
    if FSDPParamGroup.finalize_backward != _npu_finalize_backward:
        FSDPParamGroup.finalize_backward = _npu_finalize_backward
