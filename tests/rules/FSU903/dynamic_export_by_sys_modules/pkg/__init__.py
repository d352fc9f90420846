"""The adapter is also importable as `pkg.compat`, a module no file stands for: the fix is held back."""
import sys

from pkg import npu_adapter

sys.modules["pkg.compat"] = npu_adapter
