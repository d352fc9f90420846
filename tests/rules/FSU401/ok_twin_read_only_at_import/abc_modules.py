"""For the span of a block, `fully_shard` builds its classes on a subclass of FSDPModule that is also an ABC.
`replicate_with_fsdp` imported FSDPModule by name too, but reads it only once, as a base class when it is
imported: patching that binding as well would change nothing, so nothing is missing here."""
import contextlib
from abc import ABC

from torch.distributed.fsdp._fully_shard import _fully_shard


@contextlib.contextmanager
def fsdp_classes_are_abstract():
    saved = _fully_shard.FSDPModule

    class AbstractFSDPModule(ABC, saved):
        pass

    _fully_shard.FSDPModule = AbstractFSDPModule
    try:
        yield
    finally:
        _fully_shard.FSDPModule = saved
