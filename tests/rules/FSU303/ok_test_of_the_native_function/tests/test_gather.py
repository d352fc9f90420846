from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def test_native_inputs_of_no_parameters():
    assert _fsdp_collectives._get_param_all_gather_inputs([]) == []
