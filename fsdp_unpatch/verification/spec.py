"""What a verification job runs: installer specs, the two runs, and the training settings.

Everything here is plain data that crosses the process boundary as JSON, so the parent (which may not
even have torch) and the workers agree on it.
"""

from __future__ import annotations

import json
import keyword
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from fsdp_unpatch.i18n import Phrase

# device type -> torch.distributed backend
BACKENDS = {"cpu": "gloo", "cuda": "nccl", "npu": "hccl", "xpu": "xccl", "hpu": "hccl", "mlu": "cncl"}


class SpecError(ValueError):
    """A `MODULE:FUNCTION` spec that cannot be right, whatever is on sys.path (raised with a `Phrase`)."""


def _is_dotted_identifier(text: str) -> bool:
    parts = text.split(".")
    return all(p.isidentifier() and not keyword.iskeyword(p) for p in parts)


@dataclass(frozen=True)
class InstallerSpec:
    """`MODULE:FUNCTION`: a function called with no arguments, once, before `fully_shard`."""

    module: str
    function: str

    @classmethod
    def parse(cls, text: str) -> InstallerSpec:
        module, sep, function = text.strip().partition(":")
        if not sep:
            raise SpecError(Phrase("{text} is not MODULE:FUNCTION (no ':' found)", text=repr(text)))
        if not module:
            raise SpecError(Phrase("{text} is not MODULE:FUNCTION (the module is empty)", text=repr(text)))
        if not function:
            raise SpecError(Phrase("{text} is not MODULE:FUNCTION (the function is empty)", text=repr(text)))
        if module.endswith(".py") or "/" in module or "\\" in module:
            raise SpecError(
                Phrase(
                    "{text}: give a dotted module name, not a file path; put the directory that holds the package "
                    "in --patch-path / --migrated-path",
                    text=repr(text),
                )
            )
        if not _is_dotted_identifier(module):
            raise SpecError(
                Phrase("{text}: {module} is not a dotted module name", text=repr(text), module=repr(module))
            )
        if not _is_dotted_identifier(function):
            raise SpecError(
                Phrase(
                    "{text}: {function} is not a function name (dotted attributes allowed)",
                    text=repr(text),
                    function=repr(function),
                )
            )
        return cls(module, function)

    def __str__(self) -> str:
        return f"{self.module}:{self.function}"


@dataclass(frozen=True)
class RunSpec:
    """One of the two runs: its label, installers (called in order) and import roots."""

    label: str
    installers: tuple[InstallerSpec, ...] = ()
    paths: tuple[str, ...] = ()  # prepended to the workers' sys.path, in this order

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "installers": [str(s) for s in self.installers],
            "paths": list(self.paths),
        }

    @classmethod
    def from_json(cls, data: dict) -> RunSpec:
        return cls(
            data["label"],
            tuple(InstallerSpec.parse(s) for s in data["installers"]),
            tuple(data["paths"]),
        )


@dataclass(frozen=True)
class TrainingSpec:
    """The training job both runs share: same seed, model, data and steps."""

    world_size: int = 2
    device: str = "cpu"
    backend: str = "gloo"
    steps: int = 4
    seed: int = 0
    batch_size: int = 8
    # one configuration per value: fully_shard(reshard_after_forward=...)
    reshard_after_forward: tuple[bool, ...] = (True, False)
    param_dtype: str = "bfloat16"
    reduce_dtype: str = "float32"

    def to_json(self) -> dict:
        data = asdict(self)
        data["reshard_after_forward"] = list(self.reshard_after_forward)
        return data

    @classmethod
    def from_json(cls, data: dict) -> TrainingSpec:
        data = dict(data)
        data["reshard_after_forward"] = tuple(data["reshard_after_forward"])
        return cls(**data)


@dataclass(frozen=True)
class WorkerConfig:
    """Everything one worker process needs; written as JSON next to the run's outputs."""

    run: RunSpec
    training: TrainingSpec
    watch: dict
    outdir: str
    store: str  # file store for torch.distributed's rendezvous
    extra: dict = field(default_factory=dict)

    def dump(self, path: Path) -> None:
        path.write_text(
            json.dumps(
                {
                    "run": self.run.to_json(),
                    "training": self.training.to_json(),
                    "watch": self.watch,
                    "outdir": self.outdir,
                    "store": self.store,
                    "extra": self.extra,
                },
                indent=2,
            )
        )

    @classmethod
    def load(cls, path: Path) -> WorkerConfig:
        data = json.loads(Path(path).read_text())
        return cls(
            RunSpec.from_json(data["run"]),
            TrainingSpec.from_json(data["training"]),
            data["watch"],
            data["outdir"],
            data["store"],
            data.get("extra", {}),
        )


def backend_for(device: str, override: Optional[str] = None) -> str:
    if override:
        return override
    try:
        return BACKENDS[device.split(":")[0]]
    except KeyError:
        raise SpecError(
            Phrase("no known torch.distributed backend for device {device}; pass --backend", device=repr(device))
        ) from None
