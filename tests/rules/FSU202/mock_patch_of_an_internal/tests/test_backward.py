from unittest import mock

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def test_post_backward_is_called():
    with mock.patch.object(FSDPParamGroup, "post_backward") as post_backward:
        post_backward.assert_not_called()


def test_reduce_is_replaceable(monkeypatch):
    monkeypatch.setattr("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce", lambda *a: None)
