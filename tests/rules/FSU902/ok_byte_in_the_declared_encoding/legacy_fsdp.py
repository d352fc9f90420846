# -*- coding: latin-1 -*-
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce(*args, **kwargs):
    print("café")


_fsdp_collectives.foreach_reduce = _reduce
