"""The enhance patch serves all-gather buffers from a cache: native FSDP2 has no counterpart, it stays."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives

_buffers = {}


def _cached_allocate(self, size, *, dtype, device):
    key = (tuple(size), dtype, str(device))
    if key not in _buffers:
        _buffers[key] = torch.empty(*size, dtype=dtype, device=device)
    return _buffers[key]


def _apply_fsdp_enhance_patch():
    _fsdp_collectives.DefaultAllGather.allocate = _cached_allocate
