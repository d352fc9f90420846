"""Stores the adapter as `pkg.compat` without naming it, the key after a line continuation: the fix is held
back all the same."""
import importlib
import sys

_adapter = importlib.import_module("pkg." + "_".join(("npu", "adapter")))
sys.modules \
    ["pkg.compat"] = _adapter
