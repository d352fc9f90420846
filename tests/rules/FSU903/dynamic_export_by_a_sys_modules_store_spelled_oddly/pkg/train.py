import pkg.aliases  # noqa: F401
import pkg
from pkg.compat import apply_npu_collectives_patch

apply_npu_collectives_patch()
