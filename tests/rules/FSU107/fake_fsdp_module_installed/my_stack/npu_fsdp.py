"""Library code that puts its own module object where FSDP2's `_fsdp_param` module was: every later
`import` of that module, FSDP2's own included, gets the stand-in."""
import sys
import types

from my_stack import npu_param


def install_npu_param_module():
    stand_in = types.ModuleType("npu_fsdp_param")
    stand_in.__dict__.update(vars(npu_param))
    sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] = stand_in


sys.modules["torch.distributed._composable.fsdp._fsdp_collectives"] = npu_param
