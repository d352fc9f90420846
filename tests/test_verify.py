"""`fsdp-unpatch verify`, run for real: FSDP2 on CPU, gloo, two processes per run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from fsdp_unpatch.cli import main
from fsdp_unpatch.verification.compare import Tolerance, compare_results, max_abs_diff
from fsdp_unpatch.verification.spec import InstallerSpec, SpecError, backend_for
from tests.training_memo import trainings_made_once  # noqa: F401  (autouse: each training once)

pytestmark = pytest.mark.slow  # runs 2-rank FSDP2 training jobs

ROOT = Path(__file__).resolve().parents[1]
LEGACY = ROOT / "examples" / "legacy_project"
MIGRATED = ROOT / "examples" / "migrated_project"
FIXTURES = ROOT / "tests" / "fixtures" / "verify"
PATCH_MODULE = "legacy_npu.distributed.fsdp._add_fsdp_patch"
ENHANCE = f"{PATCH_MODULE}:_apply_fsdp_enhance_patch"
COLLECTIVES = f"{PATCH_MODULE}:_apply_fsdp_patch"
LEGACY_ARGS = ["--patch", ENHANCE, "--patch", COLLECTIVES, "--patch-path", str(LEGACY)]
ENHANCE_TARGETS = [
    "_fsdp_collectives.DefaultAllGather.allocate",
    "_fsdp_collectives.DefaultReduceScatter.allocate",
    "_fsdp_collectives.foreach_reduce",
    "_fsdp_param_group.foreach_reduce",
    "_fsdp_param_group.FSDPParamGroup.post_forward",
    "_fsdp_param_group.FSDPParamGroup.post_backward",
    "_fsdp_state.FSDPState._post_forward",
]
COLLECTIVE_TARGETS = [
    "_fsdp_collectives._get_param_all_gather_inputs",
    "ops.fsdp.all_gather_copy_in",
    "ops.fsdp.all_gather_copy_in.default",
    "_fsdp_param_group.FSDPParamGroup.finalize_backward",
]


def verify(*args: str):
    return CliRunner().invoke(main, ["verify", "--device", "cpu", *args], catch_exceptions=False)


def table_rows(output: str) -> list[list[str]]:
    """The cells of every body row of the rich tables in `output`."""
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines() if line.startswith("│")]


# ---------------------------------------------------------------------------------------------
# Real runs
# ---------------------------------------------------------------------------------------------
def test_example_migration_matches_the_legacy_patch_exactly():
    result = verify(*LEGACY_ARGS, "--migrated", ENHANCE, "--migrated-path", str(MIGRATED))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "comparison: exact (torch.equal)" in out
    assert "OK: the patched and migrated runs match (8 steps, 88 tensors" in out
    assert "enhance patch still installed (7 targets)" in out
    step_rows = [r for r in table_rows(out) if len(r) == 6 and r[1].isdigit()]
    assert [(r[0], r[1]) for r in step_rows] == [
        (config, str(step)) for config in ("reshard on", "reshard off") for step in range(1, 5)
    ]
    for row in step_rows:
        assert row[2] == row[3] and float(row[2]) > 0  # identical losses, printed in full
        assert row[4] == "0" and row[5] == "match"
    targets = {r[0]: r for r in table_rows(out) if len(r) == 5}
    for target in COLLECTIVE_TARGETS:  # the legacy run replaces them, the migrated run does not
        assert targets[target][1:] == ["remove", "replaced", "-", "native"], targets[target]
    for target in ENHANCE_TARGETS:  # the enhance patch is installed in both runs
        assert targets[target][1:] == ["keep", "replaced", "replaced", "installed"], targets[target]
    assert f"{COLLECTIVE_TARGETS[0]} -> {PATCH_MODULE}._patched_get_param_all_gather_inputs" in out
    assert "replacements in the migrated run" not in out


def test_wrong_migration_is_caught_and_the_table_shows_where():
    result = verify(
        *LEGACY_ARGS,
        "--migrated",
        ENHANCE,
        "--migrated",
        "wrong_copy_in:_apply_fsdp_patch",
        "--migrated-path",
        str(MIGRATED),
        "--migrated-path",
        str(FIXTURES / "wrong_migration"),
        "--steps",
        "3",
    )
    assert result.exit_code == 1, result.output
    out = result.output
    step_rows = [r for r in table_rows(out) if len(r) == 6 and r[1].isdigit()]
    assert len(step_rows) == 6
    first = [r for r in step_rows if "DIVERGED (first)" in r[5]]
    assert [(r[0], r[1]) for r in first] == [("reshard on", "1"), ("reshard off", "1")]
    for row in step_rows:
        assert row[2] != row[3] and float(row[4]) > 0 and "loss" in row[5] and "grads" in row[5]
    assert "FAIL: the runs diverge, first at step 1 (reshard_after_forward=True)" in out
    # the wrong override is reported, by name, as a collective override still installed
    targets = {r[0]: r for r in table_rows(out) if len(r) == 5}
    assert targets["ops.fsdp.all_gather_copy_in"][1:] == ["remove", "replaced", "replaced", "still replaced"]
    assert "ops.fsdp.all_gather_copy_in -> wrong_copy_in._off_by_one_all_gather_copy_in" in out
    assert all(targets[t][4] == "installed" for t in ENHANCE_TARGETS)


def test_dropped_enhance_patch_fails_even_when_training_matches():
    result = verify(
        *LEGACY_ARGS,
        "--migrated",
        "dropped_enhance:_apply_fsdp_enhance_patch",
        "--migrated-path",
        str(FIXTURES / "dropped_enhance"),
        "--steps",
        "2",
        "--output-format",
        "json",
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["matched"] is True and report["first_divergence"] is None
    assert [s["step"] for s in report["steps"]] == [1, 2, 1, 2]
    assert all(s["match"] and s["loss_max_abs_diff"] == 0.0 for s in report["steps"])
    assert all(len(s["loss_patched"]) == 2 for s in report["steps"])  # one loss per rank
    assert report["targets"]["enhance_installed"]["patched"] == ENHANCE_TARGETS
    assert report["targets"]["enhance_installed"]["migrated"] == ENHANCE_TARGETS[:2]
    assert report["targets"]["enhance_missing"] == ENHANCE_TARGETS[2:]
    assert report["targets"]["collective_overridden"] == {"patched": COLLECTIVE_TARGETS, "migrated": []}
    migrated = report["runs"]["migrated"]
    assert migrated["modules"][0]["file"] == str(FIXTURES / "dropped_enhance" / "dropped_enhance.py")
    assert report["exit_code"] == 1


# ---------------------------------------------------------------------------------------------
# Usage and setup errors: exit 2, naming the problem
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, message",
    [
        (["--patch", "legacy_npu"], "'legacy_npu' is not MODULE:FUNCTION (no ':' found)"),
        (["--patch", "legacy_npu/_api_patches.py:f"], "give a dotted module name, not a file path"),
        (["--patch", "legacy_npu:"], "the function is empty"),
        ([], "give a project folder (PATH), or the old patch with --patch MODULE:FUNCTION"),
        (["--migrated-path", str(LEGACY), "--patch", ENHANCE], "--migrated-path without --migrated"),
    ],
)
def test_bad_arguments_are_usage_errors(args, message):
    result = verify(*args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_pkg.patch:_apply", "--patch no_such_pkg.patch:_apply: no module named 'no_such_pkg'"),
        ("dropped_enhance:_apply_missing", "module 'dropped_enhance' ("),
        ("dropped_enhance:_apply_needs_device", "raised RuntimeError: no NPU device found"),
    ],
)
def test_installer_problems_are_setup_errors(spec, message):
    result = verify("--patch", spec, "--patch-path", str(FIXTURES / "dropped_enhance"), "--world-size", "1")
    assert result.exit_code == 2
    text = result.output  # stderr included (CliRunner mixes it in)
    assert "error: the patched run failed (setup)" in text
    assert message in text


def test_without_torch_verify_says_how_to_install_it():
    code = (
        "import sys; sys.modules['torch'] = None\n"  # makes `import torch` fail
        "from fsdp_unpatch.cli import main\n"
        f"main(['verify', '--patch', {ENHANCE!r}, '--patch-path', {str(LEGACY)!r}])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert "verify needs PyTorch" in proc.stderr
    assert "pip install 'fsdp-unpatch[verify]'" in proc.stderr


# ---------------------------------------------------------------------------------------------
# The comparison on its own
# ---------------------------------------------------------------------------------------------
def _run(losses, grad_scale=1.0, param_shift=0.0):
    grads = [{"w": torch.full((3,), grad_scale * (i + 1))} for i in range(len(losses))]
    return [
        {
            "reshard_after_forward": True,
            "losses": [torch.tensor(values) for values in losses],
            "grads": grads,
            "params": {"w": torch.ones(3) + param_shift},
        }
    ]


def test_exact_comparison_finds_the_first_divergent_step():
    a = _run([[1.0, 2.0], [0.5, 0.25], [0.1, 0.2]])
    b = _run([[1.0, 2.0], [0.5, 0.25 + 1e-7], [0.1, 0.3]])
    comparison = compare_results(a, b)
    assert [r.match for r in comparison.rows] == [True, False, False]
    assert comparison.first_divergence.step == 2
    assert comparison.rows[1].loss_diff == pytest.approx(1e-7, rel=0.2)
    assert not comparison.matched
    # params and grads equal: only the losses differ
    assert all(s.match for s in comparison.tensors)


def test_tolerance_accepts_small_differences_only():
    a = _run([[1.0, 2.0]], param_shift=0.0)
    b = _run([[1.0 + 1e-6, 2.0]], param_shift=1e-6)
    assert not compare_results(a, b).matched
    assert compare_results(a, b, Tolerance(atol=1e-5)).matched
    assert compare_results(a, b, Tolerance(rtol=1e-5)).matched
    assert not compare_results(a, b, Tolerance(atol=1e-8)).matched
    assert Tolerance(rtol=1e-5).describe() == "torch.allclose(rtol=1e-05, atol=0)"


def test_tensor_comparison_edge_cases():
    exact = Tolerance()
    nan = torch.tensor([1.0, math.nan])
    assert exact.same(nan, nan.clone())  # NaN in the same place matches
    assert not exact.same(torch.ones(2), torch.ones(3))
    assert not exact.same(torch.ones(2), torch.ones(2, dtype=torch.bfloat16))
    assert max_abs_diff(torch.ones(2), torch.ones(3)) == math.inf
    assert max_abs_diff(nan, torch.tensor([1.0, 2.0])) == math.inf
    assert max_abs_diff(torch.tensor([1.0, 4.0]), torch.tensor([1.5, 2.0])) == 2.0


def test_installer_spec_parsing_and_backends():
    assert InstallerSpec.parse("a.b_c:install") == InstallerSpec("a.b_c", "install")
    assert str(InstallerSpec.parse(" pkg.mod:Cls.apply ")) == "pkg.mod:Cls.apply"
    for bad in ("pkg.mod", ":f", "pkg..mod:f", "pkg.mod:1f", "class.mod:f"):
        with pytest.raises(SpecError):
            InstallerSpec.parse(bad)
    assert [backend_for(d) for d in ("cpu", "cuda", "npu", "cuda:1")] == ["gloo", "nccl", "hccl", "nccl"]
    assert backend_for("npu", "gloo") == "gloo"
    with pytest.raises(SpecError):
        backend_for("tpu")
