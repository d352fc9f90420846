"""Registration of the Python API patches that legacy_npu applies at import time."""

import torch


def _module_npu(self, device=None):
    """``Module.npu()``: on this CPU-only stand-in there is nowhere to move to."""
    return self


def _apply_module_patch():
    if not hasattr(torch.nn.Module, "npu"):
        torch.nn.Module.npu = _module_npu


def apply_api_patches():
    _apply_module_patch()
