"""End-to-end runs of the example projects on CPU.

``examples/legacy_project`` still carries the FSDP2 collectives monkey-patch; ``examples/migrated_project``
is the same tree after ``fsdp-unpatch fix``. Both must train, and train to the same losses: on the same
device ``non_blocking=True`` changes nothing numerically, which is why removing the patch is safe.

These tests need torch (the CPU build is enough); they are not skipped when it is missing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch  # noqa: F401  (required: the examples train with FSDP2)

pytestmark = pytest.mark.slow  # trains the example with torch

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = {
    "legacy": ROOT / "examples" / "legacy_project",
    "migrated": ROOT / "examples" / "migrated_project",
}
TIMEOUT = 300
LOSS_LINE = re.compile(r"^step (\d+) loss (\S+)$", re.MULTILINE)

# Runs the example's own training worker on 2 processes with call counters wrapped around whatever is
# installed at the three FSDP2 targets of the collectives patch (after importing legacy_npu, i.e. after
# _apply_fsdp_patch ran, if the project still has it). Each rank writes its report to REPORT_DIR/rank<N>.json.
PROBE = r"""
import collections
import json
import os
import sys

sys.path.insert(0, os.environ["PROJECT_DIR"])

import torch
import torch.multiprocessing as mp
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group

import legacy_npu  # noqa: F401  (applies the API patches)
from legacy_npu.distributed.fsdp import _add_fsdp_patch as patch_module
import train

TARGETS = ("get_param_all_gather_inputs", "all_gather_copy_in", "finalize_backward")


def probed_worker(rank, world_size, port):
    calls = collections.Counter()

    def counting(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    installed = {
        "get_param_all_gather_inputs": _fsdp_collectives._get_param_all_gather_inputs,
        "all_gather_copy_in": torch.ops.fsdp.all_gather_copy_in,
        "finalize_backward": _fsdp_param_group.FSDPParamGroup.finalize_backward,
    }
    is_patched = {
        name: installed[name] is getattr(patch_module, "_patched_" + name, object())
        for name in TARGETS
    }
    is_op_packet = isinstance(installed["all_gather_copy_in"], torch._ops.OpOverloadPacket)

    _fsdp_collectives._get_param_all_gather_inputs = counting(
        "get_param_all_gather_inputs", installed["get_param_all_gather_inputs"]
    )
    torch.ops.fsdp.all_gather_copy_in = counting("all_gather_copy_in", installed["all_gather_copy_in"])
    _fsdp_param_group.FSDPParamGroup.finalize_backward = counting(
        "finalize_backward", installed["finalize_backward"]
    )
    original_foreach_copy = torch._foreach_copy_

    def foreach_copy(*args, **kwargs):
        calls["foreach_copy_non_blocking" if kwargs.get("non_blocking") else "foreach_copy"] += 1
        return original_foreach_copy(*args, **kwargs)

    torch._foreach_copy_ = foreach_copy

    train.worker(rank, world_size, port)

    cache = patch_module._fsdp_mem_cache
    report = {
        "is_patched": is_patched,
        "is_op_packet": is_op_packet,
        "calls": dict(calls),
        "enhance": {
            "foreach_reduce_wrapped": (
                getattr(_fsdp_param_group.foreach_reduce, "__wrapped__", None)
                is patch_module.origin_foreach_reduce
            ),
            "cache_hits": cache.hits,
            "events": dict(cache.events),
        },
    }
    with open(os.path.join(os.environ["REPORT_DIR"], f"rank{rank}.json"), "w") as out:
        json.dump(report, out, sort_keys=True)


if __name__ == "__main__":
    mp.spawn(probed_worker, args=(2, train.free_port()), nprocs=2, join=True)
"""


def _run(args: list[str], *, env: dict[str, str] | None = None, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        args,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


@pytest.fixture(scope="module")
def train_runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    # Run from an unrelated directory: train.py must find its own package.
    cwd = tmp_path_factory.mktemp("train_cwd")
    return {name: _run([sys.executable, str(project / "train.py")], cwd=cwd) for name, project in PROJECTS.items()}


@pytest.fixture(scope="module")
def probe_reports(tmp_path_factory) -> dict[str, dict[int, dict]]:
    workdir = tmp_path_factory.mktemp("probe")
    script = workdir / "probe.py"
    script.write_text(PROBE)
    reports: dict[str, dict[int, dict]] = {}
    for name, project in PROJECTS.items():
        report_dir = workdir / name
        report_dir.mkdir()
        env = {"PROJECT_DIR": str(project), "REPORT_DIR": str(report_dir)}
        proc = _run([sys.executable, str(script)], env=env, cwd=workdir)
        assert proc.returncode == 0, f"{name} probe failed:\n{proc.stdout}\n{proc.stderr}"
        reports[name] = {rank: json.loads((report_dir / f"rank{rank}.json").read_text()) for rank in (0, 1)}
    return reports


def _losses(proc: subprocess.CompletedProcess) -> list[str]:
    return [loss for _, loss in LOSS_LINE.findall(proc.stdout)]


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_train_exits_cleanly_and_prints_three_losses(train_runs, name):
    proc = train_runs[name]
    assert proc.returncode == 0, f"{name} train.py failed:\n{proc.stdout}\n{proc.stderr}"
    assert [int(step) for step, _ in LOSS_LINE.findall(proc.stdout)] == [0, 1, 2], proc.stdout
    for loss in _losses(proc):
        assert float(loss) == float(loss), "loss is NaN"


def test_legacy_and_migrated_losses_are_equal(train_runs):
    legacy, migrated = _losses(train_runs["legacy"]), _losses(train_runs["migrated"])
    assert len(legacy) == 3
    assert legacy == migrated


def test_legacy_collectives_overrides_really_run(probe_reports):
    for rank, report in probe_reports["legacy"].items():
        assert report["is_patched"] == {
            "get_param_all_gather_inputs": True,
            "all_gather_copy_in": True,
            "finalize_backward": True,
        }, (rank, report)
        calls = report["calls"]
        assert calls.get("get_param_all_gather_inputs", 0) > 0, (rank, report)
        assert calls.get("all_gather_copy_in", 0) > 0, (rank, report)
        assert calls.get("finalize_backward", 0) > 0, (rank, report)
        # The NPU tweak itself ran: every foreach copy of the two copied collectives passed
        # non_blocking=True (all copies are same-device on CPU).
        assert calls.get("foreach_copy_non_blocking", 0) > 0, (rank, report)
        assert calls.get("foreach_copy", 0) == 0, (rank, report)


def test_migrated_runs_native_collectives(probe_reports):
    for rank, report in probe_reports["migrated"].items():
        assert not any(report["is_patched"].values()), (rank, report)
        assert report["is_op_packet"], (rank, report)
        calls = report["calls"]
        assert calls.get("get_param_all_gather_inputs", 0) > 0, (rank, report)
        assert calls.get("all_gather_copy_in", 0) > 0, (rank, report)
        assert calls.get("finalize_backward", 0) > 0, (rank, report)
        assert calls.get("foreach_copy", 0) > 0, (rank, report)
        assert calls.get("foreach_copy_non_blocking", 0) == 0, (rank, report)


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_enhance_patch_active(probe_reports, name):
    for rank, report in probe_reports[name].items():
        enhance = report["enhance"]
        assert enhance["foreach_reduce_wrapped"], (rank, report)
        assert enhance["cache_hits"] > 0, (rank, report)
        for event in ("param_group.post_forward", "param_group.post_backward", "state.post_forward"):
            assert enhance["events"].get(event, 0) > 0, (rank, report)
