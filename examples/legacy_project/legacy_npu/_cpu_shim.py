"""A stand-in ``torch.npu`` for hosts without an NPU.

legacy_npu's code talks to ``torch.npu`` the way torch-npu does. The CPU build of torch has no
such module, so this file provides the little of it that the package needs.
"""

import sys
import types

import torch


class _HostStream:
    """The only stream of a CPU-only host: work is finished by the time it is queued."""

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        return None

    def synchronize(self):
        return None


_HOST_STREAM = _HostStream()


def current_stream():
    if torch.accelerator.is_available():
        return torch.accelerator.current_stream()
    return _HOST_STREAM


def synchronize():
    if torch.accelerator.is_available():
        torch.accelerator.synchronize()


def install_cpu_npu_module():
    """Expose the stand-in as ``torch.npu``, unless a real one is already there."""
    if hasattr(torch, "npu"):
        return
    module = types.ModuleType("torch.npu")
    module.__doc__ = "CPU stand-in for torch.npu, installed by legacy_npu._cpu_shim."
    module.current_stream = current_stream
    module.synchronize = synchronize
    torch.npu = module
    sys.modules["torch.npu"] = module
