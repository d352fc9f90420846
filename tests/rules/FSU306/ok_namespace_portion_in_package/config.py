"""A top-level patch module of another project in the same tree: it binds no `retries`."""

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

TIMEOUT = 30
FSDPParamGroup.post_forward = print
