"""The call's result is used: deleting the installer would break this line, so installer and call stay."""
from npu_adapter.patch import _apply_npu_collectives_patch


def register_patches():
    installed = _apply_npu_collectives_patch()
    print("patches registered", installed)
