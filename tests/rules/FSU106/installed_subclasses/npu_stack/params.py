"""An NPU parameter class put where FSDP2's parameter group looks for its parameter class."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_param_group
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam


class NpuParam(FSDPParam):
    def init_all_gather_outputs(self, all_gather_input_numels, all_gather_input_dtypes, world_size, device, **kw):
        super().init_all_gather_outputs(all_gather_input_numels, all_gather_input_dtypes, world_size, device, **kw)
        torch.npu.synchronize()

    def _npu_stream(self):  # a name FSDP2 never defines: not an override
        return torch.npu.current_stream()


_fsdp_param_group.FSDPParam = NpuParam
