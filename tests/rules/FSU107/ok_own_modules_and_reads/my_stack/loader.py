"""Registering the project's own modules and reading FSDP2's entry of `sys.modules` replace nothing of
FSDP2."""
import sys
import types

plugins = {}


def register_plugin(name):
    sys.modules[f"my_stack.plugins.{name}"] = types.ModuleType(name)
    sys.modules["my_stack.fsdp_compat"] = types.ModuleType("fsdp_compat")


def fsdp_param_loaded():
    module = sys.modules.get("torch.distributed.fsdp._fully_shard._fsdp_param")
    plugins["fsdp_param"] = sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] if module else None
    return module is not None
