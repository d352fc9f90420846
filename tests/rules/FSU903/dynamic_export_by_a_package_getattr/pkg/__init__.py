"""Lazy exports: what the package does not define comes from the NPU adapter, so `from pkg import
apply_npu_collectives_patch` reaches the installer without naming its module. The fix is held back."""
import importlib


def __getattr__(name):
    return getattr(importlib.import_module(".npu_adapter", __name__), name)
