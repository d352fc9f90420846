"""Keeps a handle on torch-npu's patched functions, then deletes the names: the deletions go with them
(spelled natively, `del FSDPParamGroup.finalize_backward` would delete FSDP2's own method at import)."""
from torch_npu.distributed.fsdp import _add_fsdp_patch as patch
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in, _patched_finalize_backward

saved = _patched_finalize_backward
del _patched_finalize_backward


def drop():
    other = 1
    del patch._patched_get_param_all_gather_inputs, other
    del (_patched_all_gather_copy_in,)
    return saved
