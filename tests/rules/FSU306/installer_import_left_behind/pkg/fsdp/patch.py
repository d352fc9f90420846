"""The patch module after an earlier tool removed `_apply_fsdp_patch` (this docstring still names it)."""
import functools

ENABLED = True


def _apply_enhance_patch():
    return functools.partial(print, "enhanced")
