from unittest import mock


def test_finalize_is_patched():
    with mock.patch("torch_npu.distributed.fsdp._add_fsdp_patch._patched_finalize_backward") as finalize:
        finalize.assert_not_called()
