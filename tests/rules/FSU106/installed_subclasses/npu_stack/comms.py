"""Subclasses of FSDP2's collective and group classes, installed by `setattr` and passed to FSDP2."""
from torch.distributed._composable.fsdp import _fsdp_state
from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


class NpuAllGather(DefaultAllGather):
    def __call__(self, output_tensor, input_tensor, group, async_op=False):
        return super().__call__(output_tensor, input_tensor, group, async_op=async_op)


class NpuParamGroup(FSDPParamGroup):
    def finalize_backward(self):
        super().finalize_backward()
        self._npu_flush()

    def _npu_flush(self):
        pass


def enable_npu_comms(model):
    setattr(_fsdp_state, "FSDPParamGroup", NpuParamGroup)
    model.set_custom_all_gather(NpuAllGather())
