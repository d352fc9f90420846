import torch


def _chunk_cat(tensors, dim, num_chunks, *, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)


torch.ops.fsdp.chunk_cat = _chunk_cat
