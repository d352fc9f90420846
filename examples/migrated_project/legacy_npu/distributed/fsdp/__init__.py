"""FSDP2 entry points of legacy_npu."""

from legacy_npu.distributed.fsdp._fully_shard import fully_shard

__all__ = ["fully_shard"]
