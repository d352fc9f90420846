"""Stand-in for FSDP2's parameter module, with an NPU-friendly copy-out."""


def copy_out(tensors):
    return list(tensors)
