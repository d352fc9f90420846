import pkg.fsdp.patch as patch_module
from pkg.fsdp import patch

patch_module._apply_fsdp_patch()
patch._apply_fsdp_patch()
patch._apply_enhance_patch()
