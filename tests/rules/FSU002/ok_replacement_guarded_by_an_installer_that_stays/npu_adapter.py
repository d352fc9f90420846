"""The installer also logs, so it stays after its install site goes, and with it the guard that names the
replacement: the replacement stays."""
import logging

import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

log = logging.getLogger(__name__)


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward@2.10.0 _npu_finalize_backward npu-stream


def install():
    if FSDPParamGroup.finalize_backward is not _npu_finalize_backward:
        FSDPParamGroup.finalize_backward = _npu_finalize_backward
    log.info("NPU finalize_backward in place")
