from pkg.fsdp.patch import _apply_enhance_patch, _apply_fsdp_patch
from .fsdp.patch import _apply_fsdp_patch as install


def apply_api_patches():
    _apply_enhance_patch()
    _apply_fsdp_patch()
    install()
