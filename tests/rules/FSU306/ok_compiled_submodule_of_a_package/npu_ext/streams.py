from npu_ext import _C
from torch.distributed.fsdp._fully_shard import _fsdp_collectives

STREAMS = _C.stream_count()
