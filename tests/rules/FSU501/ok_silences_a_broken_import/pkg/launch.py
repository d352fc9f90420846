from pkg.fsdp.patch import _apply_enhance_patch
from pkg.fsdp.patch import _apply_fsdp_patch  # noqa: FSU306 (removed by hand; this launcher goes next)

_apply_enhance_patch()
