"""Tests written for torch 2.4-2.5, when FSDP2 lived under `torch.distributed._composable.fsdp`: the string
targets name FSDP2's internals through that package and through its root's re-exports."""
from unittest import mock


def test_forward_is_wrapped():
    with mock.patch("torch.distributed._composable.fsdp.FSDPModule", autospec=True) as module_class:
        module_class.return_value.forward.return_value = 3
        assert module_class().forward() == 3


def test_reshard_after_forward(monkeypatch):
    calls = []
    monkeypatch.setattr(
        "torch.distributed._composable.fsdp.FSDPModule.reshard", lambda self: calls.append(self)
    )
    monkeypatch.setattr(
        "torch.distributed._composable.fsdp._fsdp_param_group.FSDPParamGroup.post_forward", lambda self: None
    )
    assert calls == []
