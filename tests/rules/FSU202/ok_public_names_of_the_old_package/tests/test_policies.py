"""Patching FSDP2's public policy classes, or the project's own module that happens to be named like
FSDP2's old package, overrides no private FSDP2 internal."""
from unittest import mock


def test_policy_defaults():
    with mock.patch("torch.distributed._composable.fsdp.MixedPrecisionPolicy", autospec=True) as policy:
        policy.return_value.param_dtype = None
        assert policy().param_dtype is None


def test_own_shim():
    with mock.patch("my_trainer.compat._composable.fsdp.FSDPModule.reshard"):
        pass
