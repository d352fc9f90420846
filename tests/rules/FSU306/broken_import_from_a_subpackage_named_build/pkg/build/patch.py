"""The patch module after `_apply_fsdp_patch` was removed by hand (`pkg.build` is a real subpackage, not build output)."""

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _post_forward(self, *args):
    return None


def _apply_fsdp_enhance_patch():
    FSDPParamGroup.post_forward = _post_forward
