"""Tests that hide FSDP2 modules behind stand-ins in `sys.modules` for their own span."""
import sys
import types
from unittest import mock

FAKE = types.ModuleType("fake_collectives")


def test_fallback_without_param_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.distributed.fsdp._fully_shard._fsdp_param", None)
    assert sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] is None


def test_fake_collectives():
    with mock.patch.dict(sys.modules, {"torch.distributed._composable.fsdp._fsdp_collectives": FAKE, "x": FAKE}):
        assert "x" in sys.modules


def test_direct_replacement():
    saved = sys.modules.get("torch.distributed.fsdp._fully_shard._fsdp_common")
    sys.modules["torch.distributed.fsdp._fully_shard._fsdp_common"] = FAKE
    try:
        assert sys.modules["torch.distributed.fsdp._fully_shard._fsdp_common"] is FAKE
    finally:
        sys.modules["torch.distributed.fsdp._fully_shard._fsdp_common"] = saved
