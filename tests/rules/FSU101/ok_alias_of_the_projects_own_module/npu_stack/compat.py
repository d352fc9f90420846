"""Aliases of the project's own modules, and a local alias of FSDP2 used only inside a function."""
import npu_stack.settings as settings_module

defaults = settings_module


def fsdp_module_name():
    import torch

    fsm = torch.distributed.fsdp._fully_shard._fully_shard
    return fsm.__name__
