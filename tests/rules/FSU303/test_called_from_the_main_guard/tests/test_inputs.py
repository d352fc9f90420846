from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_get_param_all_gather_inputs


def test_patched_inputs_of_an_empty_group():
    assert _patched_get_param_all_gather_inputs([]) == []


def test_native_inputs_of_an_empty_group():
    assert _fsdp_collectives._get_param_all_gather_inputs([]) == []


if __name__ == "__main__":
    # run without pytest
    test_patched_inputs_of_an_empty_group()
    test_native_inputs_of_an_empty_group()
