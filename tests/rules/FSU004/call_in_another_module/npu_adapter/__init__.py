"""The package's registration module calls the installer that patch.py defines."""
from npu_adapter.patch import _apply_npu_collectives_patch


def register_patches():
    _apply_npu_collectives_patch()
    print("patches registered")
