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
from typing import Any, cast

import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group, _fsdp_state
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup as _ParamGroup
from torch.distributed.utils import _to_kwargs

logger = logging.getLogger("legacy_npu.fsdp")


# Copy of torch's _get_param_all_gather_inputs; NPU change: non_blocking=True for same-device copies.
# (Copied without @torch.no_grad(): its only caller, foreach_all_gather, already runs under no_grad.)
def _patched_get_param_all_gather_inputs(
    fsdp_params: list[FSDPParam],
) -> list[list[torch.Tensor]]:
    # Intentionally try to run a fast-path that bypasses abstractions for the
    # common FSDP case of bf16/fp32 mixed precision in order to use foreach
    # copy for lower CPU overhead and more efficient copying in eager
    def use_foreach_copy(fsdp_param: FSDPParam) -> bool:
        return (
            fsdp_param.param_dtype is not None
            and not fsdp_param.offload_to_cpu
            and not hasattr(fsdp_param._sharded_local_tensor, "fsdp_pre_all_gather")
        )

    param_all_gather_inputs: list[list[torch.Tensor]] = [[] for _ in fsdp_params]
    foreach_copy_indices: list[int] = []
    foreach_copy_inputs: list[torch.Tensor] = []
    foreach_copy_input_numels: list[int] = []

    # 1st pass: for foreach-copy parameters, get inputs and metadata for the
    # foreach copy, and for the others, actually get their all-gather inputs
    for i, fsdp_param in enumerate(fsdp_params):
        if use_foreach_copy(fsdp_param):
            foreach_copy_indices.append(i)
            all_gather_input = (
                fsdp_param._sharded_param_data
                if fsdp_param.sharded_state == ShardedState.SHARDED
                else cast(torch.Tensor, fsdp_param._sharded_post_forward_param_data)
            )
            foreach_copy_inputs.append(all_gather_input)
            foreach_copy_input_numels.append(all_gather_input.numel())
        else:
            param_all_gather_inputs[i] = fsdp_param.all_gather_inputs

    # 2nd pass: use foreach copy to compute the remaining all-gather inputs
    if foreach_copy_inputs:
        fsdp_param_0 = fsdp_params[foreach_copy_indices[0]]
        param_dtype, device = fsdp_param_0.param_dtype, fsdp_param_0.device
        flat_foreach_copy_input = torch.empty(
            (sum(foreach_copy_input_numels),), device=device, dtype=param_dtype
        )
        splits = torch.split(flat_foreach_copy_input, foreach_copy_input_numels)
        if splits[0].device == foreach_copy_inputs[0].device:
            torch._foreach_copy_(splits, foreach_copy_inputs, non_blocking=True)
        else:
            torch._foreach_copy_(splits, foreach_copy_inputs)
        for i, split in zip(foreach_copy_indices, splits):
            param_all_gather_inputs[i] = [split]

    return param_all_gather_inputs


# Copy of torch's all_gather_copy_in python kernel; NPU change: non_blocking=True for same-device copies.
def _patched_all_gather_copy_in(
    all_gather_inputs: list[torch.Tensor],
    all_gather_output: torch.Tensor,
    inp_split_sizes: list[int],
    all_gather_input_numel: int,
    rank: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    all_gather_input = all_gather_output.narrow(
        0, all_gather_input_numel * rank, all_gather_input_numel
    )
    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)
    with torch.no_grad():
        if foreach_copy_dsts[0].device != all_gather_inputs[0].device:
            torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)
        else:
            torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs, non_blocking=True)
    return all_gather_input, all_gather_output


# Copy of torch's FSDPParamGroup.finalize_backward; NPU change: waits on the NPU stream by name.
def _patched_finalize_backward(self):
    for event in self.comm_ctx._last_post_reduce_events.values():
        self.device_handle.current_stream().wait_event(event)
    self.comm_ctx._last_post_reduce_events = dict()
    self._post_reduce_event = None
    self._all_reduce_state = None
    for fsdp_param in self.fsdp_params:
        if fsdp_param.grad_offload_event is not None:
            fsdp_param.grad_offload_event.synchronize()
            fsdp_param.grad_offload_event = None
    if self._all_gather_result is not None:
        # If there was a mistargeted unshard without a corresponding wait,
        # then we wait here and clear the unshard
        event = self._all_gather_result.all_gather_event
        if event is not None:
            torch.npu.current_stream().wait_event(event)
        work = self._all_gather_result.all_gather_work
        if isinstance(work, dist.distributed_c10d.Work):
            work.wait()
        self._all_gather_result = None
    self._post_forward_indices.clear()


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


def _apply_fsdp_patch():
    torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs = (
        _patched_get_param_all_gather_inputs
    )
    torch.ops.fsdp.all_gather_copy_in.default = _patched_all_gather_copy_in
    torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in
    _ParamGroup.finalize_backward = _patched_finalize_backward


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
