"""Before torch 2.9 gave all-gather and reduce-scatter an `allocate` hook, an enhance patch reached its buffer
cache through `allocate_memory`, and marked each all-gather with a wrapper so that only those buffers come
from the cache. The same memory cache as the `allocate` overrides: kept, in both modules."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group

_pool = {}
_cache_groups = set()


def _pooled_allocate_memory(size, dtype, device, group, from_process_group):
    if id(group) not in _cache_groups:
        return torch.empty((size,), dtype=dtype, device=device)
    key = (size, dtype, str(device))
    if key not in _pool:
        _pool[key] = torch.empty((size,), dtype=dtype, device=device)
    return _pool[key]


def _cache_during(all_gather):
    def marked(fsdp_params, group, *args, **kwargs):
        _cache_groups.add(id(group))
        try:
            return all_gather(fsdp_params, group, *args, **kwargs)
        finally:
            _cache_groups.discard(id(group))

    return marked


def _apply_fsdp_enhance_patch():
    _fsdp_collectives.allocate_memory = _pooled_allocate_memory
    original = _fsdp_collectives.foreach_all_gather
    _fsdp_collectives.foreach_all_gather = _cache_during(original)
    _fsdp_param_group.foreach_all_gather = _cache_during(original)
