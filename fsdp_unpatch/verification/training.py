"""The worker side of `verify`: one process per rank, one set of processes per run.

A worker puts its run's import roots in front of `sys.path`, records torch's original FSDP2 objects,
calls the run's installers, notes which watched targets they replaced, then trains a small model with
FSDP2 (mixed precision, several `fully_shard` groups plus the root) once per `reshard_after_forward`
configuration. Rank 0 writes the per-step losses, the per-step gradients and the final parameters
(all gathered to full tensors) to the run's directory.

Run as `python -c "from fsdp_unpatch.verification.training import main; main()" CONFIG RANK`; the
launcher (`runner.py`) does that in a fresh interpreter whose working directory is the run's own
directory, so nothing from the caller's working directory can shadow the package under test.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from fsdp_unpatch.i18n import Phrase
from fsdp_unpatch.verification.spec import InstallerSpec, RunSpec, TrainingSpec, WorkerConfig
from fsdp_unpatch.verification.targets import FSDP2_ROOTS, WatchList

EXIT_OK = 0
EXIT_SETUP = 3  # a bad installer spec, or an installer that raised
EXIT_CRASH = 4  # training itself failed

_MISSING = object()

# Model shape. 33 does not divide by 2 or 4, so dim-0 shards are uneven and padded, which is where
# an off-by-one in a copy-in shows first.
IN_DIM, DIM, HIDDEN, OUT_DIM, BLOCKS = 12, 16, 33, 5, 3


class SetupError(Exception):
    """An installer that cannot be imported, found, or run. Reported as a usage/setup error, in the parent's
    language: the message is a `Phrase`, which the error file carries in parts (`_write_error`)."""


# ---------------------------------------------------------------------------------------------
# Targets: resolving, recording, describing
# ---------------------------------------------------------------------------------------------
def fsdp2_root() -> str:
    for root in FSDP2_ROOTS:
        try:
            importlib.import_module(f"{root}._fsdp_collectives")
            return root
        except ImportError:
            continue
    raise SetupError(Phrase("this torch has no FSDP2 (fully_shard); verify needs torch >= 2.4"))


def resolve(target: str, root: str) -> Any:
    """The object a target id names right now, or _MISSING."""
    import torch

    parts = target.split(".")
    if parts[0] == "ops":
        obj: Any = torch.ops
        rest = parts[1:]
    else:
        try:
            obj = importlib.import_module(f"{root}.{parts[0]}")
        except ImportError:
            return _MISSING
        rest = parts[1:]
    for part in rest:
        try:
            obj = getattr(obj, part)
        except (AttributeError, RuntimeError):
            return _MISSING
    return obj


def describe(obj: Any) -> str:
    if obj is _MISSING:
        return "<missing>"
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if module and qualname:
        return f"{module}.{qualname}"
    return type(obj).__name__


def _op_names(targets: tuple[str, ...]) -> list[str]:
    names = []
    for target in targets:
        parts = target.split(".")
        if parts[0] == "ops" and len(parts) >= 3:
            name = f"{parts[1]}::{parts[2]}"
            if name not in names:
                names.append(name)
    return names


def _dispatch_table(op: str) -> dict[str, str]:
    """Dispatch key -> registration line, as torch reports it (empty if the op is unknown)."""
    import torch

    try:
        dump = torch._C._dispatch_dump(op)
    except Exception:
        return {}
    table = {}
    for line in dump.splitlines():
        key, sep, rest = line.partition(": ")
        if sep and key not in {"name", "schema", "debug", "alias analysis kind"}:
            table[key] = rest
    return table


# ---------------------------------------------------------------------------------------------
# Installers
# ---------------------------------------------------------------------------------------------
def _import_installer(spec: InstallerSpec, option: str, paths: tuple[str, ...]) -> Any:
    if paths:
        where = Phrase(" (looked first in {option}-path {paths})", option=option, paths=", ".join(paths))
    else:
        where = Phrase(" (no {option}-path given)", option=option)
    named = {"option": option, "spec": str(spec), "module": repr(spec.module)}
    try:
        module = importlib.import_module(spec.module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if spec.module == missing or spec.module.startswith(missing + "."):
            raise SetupError(
                Phrase("{option} {spec}: no module named {missing}{where}", **named, missing=repr(missing), where=where)
            ) from None
        raise SetupError(
            Phrase("{option} {spec}: importing {module} failed: ModuleNotFoundError: {error}", **named, error=str(exc))
        ) from None
    except Exception as exc:
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        raise SetupError(
            Phrase("{option} {spec}: importing {module} raised {detail}", **named, detail=detail)
        ) from None
    obj: Any = module
    for attr in spec.function.split("."):
        if not hasattr(obj, attr):
            raise SetupError(
                Phrase(
                    "{option} {spec}: module {module} ({file}) has no attribute {function}",
                    **named,
                    file=str(getattr(module, "__file__", "?")),
                    function=repr(spec.function),
                )
            )
        obj = getattr(obj, attr)
    if not callable(obj):
        raise SetupError(
            Phrase(
                "{option} {spec}: {function} is a {type}, not a function",
                **named,
                function=repr(spec.function),
                type=type(obj).__name__,
            )
        )
    return module, obj


def install(run: RunSpec, option: str, watch: WatchList) -> dict:
    """Apply the run's installers; report what changed. Raises SetupError for bad installers."""
    for path in reversed(run.paths):
        sys.path.insert(0, str(Path(path).resolve()))

    root = fsdp2_root()
    originals = {target: resolve(target, root) for target in watch.all}
    ops = _op_names(watch.all)
    kernels_before = {op: _dispatch_table(op) for op in ops}

    installers = []
    for spec in run.installers:
        module, function = _import_installer(spec, option, run.paths)
        try:
            function()
        except Exception as exc:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            error = f"{type(exc).__name__}: {exc}"
            raise SetupError(
                Phrase(
                    "{option} {spec} raised {error}\n{detail}",
                    option=option,
                    spec=str(spec),
                    error=error,
                    detail=detail,
                )
            ) from None
        installers.append({"spec": str(spec), "file": getattr(module, "__file__", None)})

    targets = {}
    for target in watch.all:
        now = resolve(target, root)
        targets[target] = {
            "overridden": now is not originals[target],
            "original": describe(originals[target]),
            "current": describe(now),
        }
    kernels = {}
    for op in ops:
        after = _dispatch_table(op)
        changed = sorted(k for k in set(after) | set(kernels_before[op]) if after.get(k) != kernels_before[op].get(k))
        if changed:
            kernels[op] = changed
    return {"fsdp2_root": root, "installers": installers, "targets": targets, "kernels_reregistered": kernels}


# ---------------------------------------------------------------------------------------------
# The training job
# ---------------------------------------------------------------------------------------------
def _build_model(seed: int):
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.up = nn.Linear(DIM, HIDDEN)
            self.down = nn.Linear(HIDDEN, DIM)

        def forward(self, x):
            return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))

    class TinyModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inp = nn.Linear(IN_DIM, DIM)
            self.blocks = nn.ModuleList(Block() for _ in range(BLOCKS))
            self.head = nn.Linear(DIM, OUT_DIM)

        def forward(self, x):
            x = self.inp(x)
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    torch.manual_seed(seed)
    return TinyModel()


def _fully_shard_api():
    try:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    except ImportError:  # torch < 2.6
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard
    return fully_shard, MixedPrecisionPolicy


def _batches(spec: TrainingSpec, rank: int):
    import torch

    generator = torch.Generator().manual_seed(spec.seed * 1000 + 17 + rank)
    return [
        (
            torch.randn(spec.batch_size, IN_DIM, generator=generator),
            torch.randn(spec.batch_size, OUT_DIM, generator=generator),
        )
        for _ in range(spec.steps)
    ]


def train_configuration(spec: TrainingSpec, reshard: bool, rank: int, device) -> dict:
    import torch
    import torch.distributed as dist

    fully_shard, MixedPrecisionPolicy = _fully_shard_api()
    model = _build_model(spec.seed).to(device)
    policy = MixedPrecisionPolicy(
        param_dtype=getattr(torch, spec.param_dtype), reduce_dtype=getattr(torch, spec.reduce_dtype)
    )
    for block in model.blocks:
        fully_shard(block, mp_policy=policy, reshard_after_forward=reshard)
    fully_shard(model, mp_policy=policy, reshard_after_forward=reshard)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)

    losses, grads = [], []
    for x, y in _batches(spec, rank):
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
        loss.backward()
        gathered = torch.empty(spec.world_size, dtype=torch.float32, device=device)
        # all_gather_single is the new name (torch >= 2.13) of all_gather_into_tensor
        gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
        gather(gathered, loss.detach().float().reshape(1))
        step_grads = {}
        for name, param in model.named_parameters():
            full = None if param.grad is None else param.grad.full_tensor()
            if rank == 0:
                step_grads[name] = None if full is None else full.detach().cpu().clone()
        losses.append(gathered.cpu())
        grads.append(step_grads)
        optimizer.step()
        optimizer.zero_grad()
    params = {}
    for name, param in model.named_parameters():
        full = param.full_tensor()
        if rank == 0:
            params[name] = full.detach().cpu().clone()
    del model, optimizer
    gc.collect()
    return {"reshard_after_forward": reshard, "losses": losses, "grads": grads, "params": params}


def train(spec: TrainingSpec, store: str, rank: int) -> list[dict]:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    if spec.device == "cpu":
        device = torch.device("cpu")
    else:
        if spec.device.split(":")[0] == "npu":
            importlib.import_module("torch_npu")
        module = torch.get_device_module(spec.device.split(":")[0])
        index = rank % max(1, module.device_count())
        module.set_device(index)
        device = torch.device(spec.device.split(":")[0], index)
    dist.init_process_group(spec.backend, init_method=f"file://{store}", rank=rank, world_size=spec.world_size)
    try:
        return [train_configuration(spec, reshard, rank, device) for reshard in spec.reshard_after_forward]
    finally:
        dist.destroy_process_group()


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------
def _write_error(outdir: Path, rank: int, kind: str, message: str) -> None:
    """The error file the parent reads (`runner.py`); a `Phrase` also in parts, for the parent to translate."""
    error: dict[str, Any] = {"kind": kind, "rank": rank, "message": str(message)}
    if isinstance(message, Phrase):
        error["phrase"] = message.to_json()
    (outdir / f"error.rank{rank}.json").write_text(json.dumps(error))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    config = WorkerConfig.load(Path(argv[0]))
    rank = int(argv[1])
    outdir = Path(config.outdir)
    option = config.extra.get("option", "--patch")
    started = time.perf_counter()
    try:
        meta = install(config.run, option, WatchList.from_json(config.watch))
    except SetupError as exc:
        _write_error(outdir, rank, "setup", exc.args[0] if len(exc.args) == 1 else str(exc))
        return EXIT_SETUP
    try:
        results = train(config.training, config.store, rank)
    except Exception as exc:
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        _write_error(outdir, rank, "training", f"{type(exc).__name__}: {exc}\n{detail}")
        return EXIT_CRASH
    if rank == 0:
        import torch

        meta.update(
            torch=torch.__version__,
            seconds=round(time.perf_counter() - started, 3),
            pid=os.getpid(),
        )
        torch.save(results, outdir / "result.pt")
        (outdir / "meta.json").write_text(json.dumps(meta, indent=2))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover - the launcher uses -c
    sys.exit(main())
