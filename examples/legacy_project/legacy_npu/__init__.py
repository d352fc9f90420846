"""legacy_npu: a toy package shaped like torch_npu.

Importing it does what importing torch_npu does: it makes ``torch.npu`` available and applies the
package's Python API patches.
"""

from legacy_npu._cpu_shim import install_cpu_npu_module

install_cpu_npu_module()

from legacy_npu._api_patches import apply_api_patches  # noqa: E402

apply_api_patches()

__version__ = "2.13.0.dev0"
