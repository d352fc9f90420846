"""Downstream training script: a tiny MLP trained with legacy_npu's FSDP2 ``fully_shard``.

Runs on CPU: two processes, gloo backend, three steps with a fixed seed. Rank 0 prints the losses.
Usage: ``python train.py`` from any directory.
"""

import gc
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch import nn  # noqa: E402
from torch.distributed.fsdp import MixedPrecisionPolicy  # noqa: E402

import legacy_npu  # noqa: E402,F401  (importing it applies the API patches, like torch_npu)
from legacy_npu.distributed.fsdp import fully_shard  # noqa: E402

WORLD_SIZE = 2
STEPS = 3
SEED = 1234


def build_model() -> nn.Module:
    torch.manual_seed(SEED)
    model = nn.Sequential(
        nn.Linear(16, 32),
        nn.ReLU(),
        nn.Linear(32, 32),
        nn.ReLU(),
        nn.Linear(32, 4),
    )
    # bf16 compute with fp32 reduction: this is the mixed-precision case in which FSDP2 builds
    # the all-gather inputs with a foreach copy.
    mp_policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mp_policy=mp_policy)
    fully_shard(model, mp_policy=mp_policy)
    return model


def train_steps(rank: int, steps: int) -> list[float]:
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.Generator().manual_seed(SEED + rank)
    losses = []
    for step in range(steps):
        inputs = torch.randn(8, 16, generator=data)
        targets = torch.randn(8, 4, generator=data)
        loss = nn.functional.mse_loss(model(inputs).float(), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
        if rank == 0:
            print(f"step {step} loss {loss.item()!r}", flush=True)
    return losses


def worker(rank: int, world_size: int, port: int, steps: int = STEPS) -> list[float]:
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size
    )
    try:
        return train_steps(rank, steps)
    finally:
        # FSDP's module state and the module refer to each other. Collect them while the process
        # group is alive: left to interpreter exit, their teardown can abort the process.
        gc.collect()
        dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    mp.spawn(worker, args=(WORLD_SIZE, free_port()), nprocs=WORLD_SIZE, join=True)


if __name__ == "__main__":
    main()
