"""Entry points this framework offers on every backend, whatever the accelerator."""


def _apply_fsdp_patch():
    """Older NPU stacks patched FSDP2 from here; native FSDP2 needs nothing now, and old callers keep working."""


def warm_up():
    _apply_fsdp_patch()
    return True
