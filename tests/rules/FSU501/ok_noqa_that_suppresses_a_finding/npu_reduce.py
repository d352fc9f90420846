from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _npu_foreach_reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _npu_foreach_reduce  # noqa: FSU101
_fsdp_param_group.foreach_reduce = _npu_foreach_reduce  # noqa: FSU101, E501
