"""A vendor's copy of FSDPParamGroup._init_mp_dtypes (no proof covers it), taken from torch 2.10, and of
FSDPParam.reset_sharded_param, which torch 2.14 still has as it was."""

from typing import Any

from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

# @upstream _fsdp_param_group.FSDPParamGroup._init_mp_dtypes@2.10.0 _vendor_init_mp_dtypes as-is

# @upstream _fsdp_param.FSDPParam.reset_sharded_param@2.10.0 _vendor_reset_sharded_param as-is


def apply_vendor_patch() -> Any:
    FSDPParamGroup._init_mp_dtypes = _vendor_init_mp_dtypes
    FSDPParam.reset_sharded_param = _vendor_reset_sharded_param
