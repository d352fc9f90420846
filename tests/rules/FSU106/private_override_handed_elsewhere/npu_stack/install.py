from torch.distributed.fsdp._fully_shard import _fsdp_state

from npu_stack.groups import NpuGroup


def enable():
    _fsdp_state.FSDPParamGroup = NpuGroup
