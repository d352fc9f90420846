"""What `doctor` and `verify` found, read from their JSON reports for the merge-request description.

`fsdp-unpatch doctor --output-format json` and `fsdp-unpatch verify --output-format json` write these files;
`fix --report` takes them with `--doctor-report` and `--verify-report`. A file that cannot be read, is not
JSON, or is not such a report raises `EvidenceError`, whose message names the file and the problem: it is
read before anything is fixed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from fsdp_unpatch.i18n import gettext as _

# The name of doctor's check that times a same-device `_foreach_copy_` (verification/probes.py).
ASYNC_PROBE = "_foreach_copy_ device-async probe"


class EvidenceError(ValueError):
    """A doctor or verify report that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok, warn, fail, skip
    message: str


@dataclass(frozen=True)
class Doctor:
    file: str
    torch: Optional[str]
    device: str
    checks: tuple[Check, ...]
    summary: dict[str, int]

    @property
    def probe(self) -> Optional[Check]:
        return next((c for c in self.checks if c.name == ASYNC_PROBE), None)

    @property
    def plugins(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.name.startswith("accelerator plugin"))


@dataclass(frozen=True)
class Verified:
    file: str
    matched: bool
    steps: int
    tensors: int
    comparison: str
    device: str
    world_size: int
    first_divergence: Optional[dict[str, Any]]
    enhance_installed: tuple[str, ...]  # by the migrated run
    enhance_missing: tuple[str, ...]


def _load(path: str, option: str, command: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise EvidenceError(
            _("{option} {path}: cannot read it ({error})").format(
                option=option, path=path, error=error.strerror or error
            )
        ) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise EvidenceError(
            _("{option} {path}: not JSON ({error})").format(option=option, path=path, error=error)
        ) from None
    if not isinstance(data, dict):
        raise EvidenceError(
            _("{option} {path}: not a report of `{command} --output-format json`").format(
                option=option, path=path, command=command
            )
        )
    return data


def _field(data: dict, key: str, kind: type, path: str, option: str, command: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise EvidenceError(
            _("{option} {path}: no `{key}` ({kind}): not a report of `{command} --output-format json`").format(
                option=option, path=path, key=key, kind=kind.__name__, command=command
            )
        )
    return value


def load_doctor(path: str) -> Doctor:
    option, command = "--doctor-report", "fsdp-unpatch doctor"
    data = _load(path, option, command)
    checks = []
    for item in _field(data, "checks", list, path, option, command):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("name", "status", "message")):
            raise EvidenceError(
                _("{option} {path}: a check without a name, status and message").format(option=option, path=path)
            )
        checks.append(Check(item["name"], item["status"], item["message"]))
    summary = _field(data, "summary", dict, path, option, command)
    torch = data.get("torch")
    return Doctor(
        file=path,
        torch=torch if isinstance(torch, str) else None,
        device=str(data.get("device") or ""),
        checks=tuple(checks),
        summary={status: int(summary.get(status, 0)) for status in ("ok", "warn", "fail", "skip")},
    )


def load_verify(path: str) -> Verified:
    option, command = "--verify-report", "fsdp-unpatch verify"
    data = _load(path, option, command)
    matched = _field(data, "matched", bool, path, option, command)
    steps = _field(data, "steps", list, path, option, command)
    tensors = _field(data, "tensors", list, path, option, command)
    training = _field(data, "training", dict, path, option, command)
    targets = _field(data, "targets", dict, path, option, command)
    installed = targets.get("enhance_installed", {})
    migrated = installed.get("migrated", []) if isinstance(installed, dict) else []
    divergence = data.get("first_divergence")
    return Verified(
        file=path,
        matched=matched,
        steps=len(steps),
        tensors=sum(int(t.get("compared", 0)) for t in tensors if isinstance(t, dict)),
        comparison=str(data.get("comparison", "")),
        device=str(training.get("device", "")),
        world_size=int(training.get("world_size", 0) or 0),
        first_divergence=divergence if isinstance(divergence, dict) else None,
        enhance_installed=tuple(str(t) for t in migrated or ()),
        enhance_missing=tuple(str(t) for t in targets.get("enhance_missing", []) or ()),
    )
