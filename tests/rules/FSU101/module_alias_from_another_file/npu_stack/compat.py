"""One place that knows where FSDP2 lives on each torch release."""
import torch

try:
    fsm = torch.distributed.fsdp._fully_shard._fully_shard
except AttributeError:  # torch 2.4-2.5
    fsm = None

collectives = torch.distributed.fsdp._fully_shard._fsdp_collectives
import torch.distributed.fsdp._fully_shard._fsdp_param_group as param_group
