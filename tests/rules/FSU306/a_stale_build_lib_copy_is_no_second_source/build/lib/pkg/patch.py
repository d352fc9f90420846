"""A stale copy of the patch module, left by `python setup.py build`: it still binds `_apply_fsdp_patch`."""

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _post_forward(self, *args):
    return None


def _apply_fsdp_enhance_patch():
    FSDPParamGroup.post_forward = _post_forward


def _apply_fsdp_patch():
    _apply_fsdp_enhance_patch()
