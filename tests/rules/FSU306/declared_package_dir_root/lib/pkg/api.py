from pkg.patch import _apply_fsdp_enhance_patch
from pkg.patch import _apply_fsdp_patch  # removed from the patch module by hand: this import fails

_apply_fsdp_enhance_patch()
_apply_fsdp_patch()
