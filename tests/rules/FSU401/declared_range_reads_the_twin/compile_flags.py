"""Four FSDP2 modules imported `compiled_autograd_enabled` by name up to torch 2.11 and read their own binding:
patching `_fsdp_common` alone misses them on 2.10 and 2.11, releases the project still allows."""
from torch.distributed.fsdp._fully_shard import _fsdp_common


def _never_compiled():
    return False


_fsdp_common.compiled_autograd_enabled = _never_compiled
