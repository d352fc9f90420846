from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

retries = 3
FSDPParamGroup.post_forward = print
