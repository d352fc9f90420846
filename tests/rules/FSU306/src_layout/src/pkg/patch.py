"""The patch module of a src/ layout: `pkg.patch`, as the installed package imports it."""

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _post_forward(self, *args):
    return None


def _apply_fsdp_enhance_patch():
    FSDPParamGroup.post_forward = _post_forward
