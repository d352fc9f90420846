"""``fully_shard`` as legacy_npu exposes it: torch's FSDP2 with the NPU enhance patch applied first."""

from torch.distributed.fsdp import fully_shard as _torch_fully_shard

from legacy_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_enhance_patch


def fully_shard(module, **kwargs):
    # The enhance patch must be in place before torch registers the FSDP hooks of the module.
    _apply_fsdp_enhance_patch()
    return _torch_fully_shard(module, **kwargs)
