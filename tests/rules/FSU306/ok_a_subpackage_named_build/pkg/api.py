from pkg.build.patch import _apply_fsdp_patch

_apply_fsdp_patch()
