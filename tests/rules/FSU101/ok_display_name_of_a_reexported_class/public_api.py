"""A package that re-exports FSDP2's module class under its public path and names it for display: a string
stored in `__module__` or `__qualname__` runs no other code, so it overrides nothing."""
from torch.distributed._composable.fsdp import FSDPModule

FSDPModule.__module__ = "my_stack.fsdp"
FSDPModule.__qualname__ = "ShardedModule"

__all__ = ["FSDPModule"]
