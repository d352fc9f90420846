from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

from npu_adapter import _npu_finalize_backward, install


def test_install_puts_the_npu_copy_in_place():
    install()
    assert FSDPParamGroup.finalize_backward is _npu_finalize_backward
