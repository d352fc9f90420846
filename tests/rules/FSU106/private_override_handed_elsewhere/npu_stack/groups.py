"""A parameter-group subclass whose private FSDP2 method is overridden; another module hands it to FSDP2."""
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


class NpuGroup(FSDPParamGroup):
    def _init_mp_dtypes(self):  # only FSDP2 calls it: handed over somewhere
        super()._init_mp_dtypes()

    def unshard(self, async_op=False):  # public: the project may call it itself
        return super().unshard(async_op)

    def _npu_only(self):  # a name FSDP2 never defines: overrides nothing
        return None
