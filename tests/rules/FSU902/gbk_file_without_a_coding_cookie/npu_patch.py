# 为 NPU 准备的 FSDP2 补丁（在 GBK 系统上编写，没有编码声明）
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _npu_inputs(*args):
    return None


_fsdp_collectives._get_param_all_gather_inputs = _npu_inputs
