"""A code swap between the project's own functions is not an FSDP2 override."""


def _reduce(*args, **kwargs):
    return 1


def _reduce_in_fp32(*args, **kwargs):
    return None


_reduce.__code__ = _reduce_in_fp32.__code__
