"""Test helpers that swap FSDP2 internals for the length of a test and put the originals back."""

import contextlib

import torch


@contextlib.contextmanager
def counting_all_gathers(counter):
    original = torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather

    def counted(*args, **kwargs):
        counter.append(len(args))
        return original(*args, **kwargs)

    torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather = counted
    try:
        yield counter
    finally:
        torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather = original


class ReshardProbe:
    def setUp(self):
        self.saved_reshard = torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.reshard
        torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.reshard = self.quiet_reshard

    def tearDown(self):
        torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.reshard = self.saved_reshard

    def quiet_reshard(self, group):
        return None
