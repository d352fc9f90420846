from unittest import mock


def test_finalize_is_called():
    target = "torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.finalize_backward"
    with mock.patch(target) as finalize:
        finalize.assert_not_called()
