"""The enhance installer stays in torch-npu: naming it is fine."""
from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_enhance_patch


def setup():
    _apply_fsdp_enhance_patch()
