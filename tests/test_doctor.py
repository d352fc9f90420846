"""`fsdp-unpatch doctor` on this CPU-only machine, and its probes on their own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from fsdp_unpatch.cli import main
from fsdp_unpatch.verification import probes

ROOT = Path(__file__).resolve().parents[1]
LEGACY = ROOT / "examples" / "legacy_project"
PATCH_FILE = "legacy_npu/distributed/fsdp/_add_fsdp_patch.py"


def doctor(*args: str):
    return CliRunner().invoke(main, ["doctor", *args], catch_exceptions=False)


def doctor_json(*args: str) -> tuple[int, dict]:
    result = doctor(*args, "--output-format", "json")
    return result.exit_code, json.loads(result.output)


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


def test_doctor_on_cpu_text():
    result = doctor("--device", "cpu")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("fsdp-unpatch doctor: torch 2.13.0")
    assert "device cpu (dispatch keys CPU, PrivateUse1)" in lines[0]

    def row(name: str) -> list[str]:
        found = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if f"│ {name} " in line]
        assert found, name
        return found[0]

    assert row("torch")[0] == "ok" and row("torch")[2].startswith("2.13.0")
    assert row("native FSDP op kernels [PrivateUse1]")[0] == "ok"
    assert row("native FSDP op kernels [CPU]")[0] == "ok"
    assert row("torch >= 2.8 for ops.fsdp.all_gather_copy_in")[0] == "ok"
    assert row("accelerator plugin")[0] == "warn"
    probe = row("_foreach_copy_ device-async probe")
    assert probe[0] == "skip" and probe[2].startswith("does not apply on a CPU-only machine")
    assert re.fullmatch(r"\d+ ok, 1 warn, 0 fail, 2 skip -> OK", lines[-1]), lines[-1]


def test_doctor_json_scans_the_tree_for_overrides():
    code, report = doctor_json(str(LEGACY), "--device", "cpu")
    assert code == 0 and report["exit_code"] == 0
    assert report["device"] == "cpu" and report["dispatch_keys"] == ["CPU", "PrivateUse1"]
    assert report["torch"].startswith("2.13.0") and report["target_torch"] is None
    checks = by_name(report)
    versions = {c["details"]["target"]: c for c in report["checks"] if c["name"].startswith("torch >= ")}
    assert set(versions) == {
        "_fsdp_collectives._get_param_all_gather_inputs",
        "ops.fsdp.all_gather_copy_in",
        "ops.fsdp.all_gather_copy_in.default",
        "_fsdp_param_group.FSDPParamGroup.finalize_backward",
    }
    for check in versions.values():
        assert check["status"] == "ok"
        path, line = check["details"]["where"].rsplit(":", 1)
        assert path.endswith(PATCH_FILE) and line.isdigit()
    assert checks["native FSDP op kernels [PrivateUse1]"]["details"]["registered"] == list(probes.FSDP_OPS)
    assert checks["_foreach_copy_ device-async probe"]["status"] == "skip"
    assert report["summary"]["fail"] == 0


@pytest.mark.parametrize(
    "target_torch, failing",
    [
        ("2.7", {"ops.fsdp.all_gather_copy_in", "ops.fsdp.all_gather_copy_in.default"}),
        (
            "2.5",
            {
                "ops.fsdp.all_gather_copy_in",
                "ops.fsdp.all_gather_copy_in.default",
                "_fsdp_param_group.FSDPParamGroup.finalize_backward",
                "_fsdp_collectives._get_param_all_gather_inputs",
            },
        ),
        ("2.8", set()),
    ],
)
def test_target_torch_older_than_native_since_fails(target_torch, failing):
    code, report = doctor_json(str(LEGACY), "--device", "cpu", "--target-torch", target_torch)
    failed = {c["details"]["target"] for c in report["checks"] if c["status"] == "fail"}
    assert failed == failing
    assert code == (1 if failing else 0)
    for check in report["checks"]:
        if check["status"] == "fail":
            assert f"--target-torch {target_torch} is older than" in check["message"]
            assert "keep this override on this branch" in check["message"]


def test_tree_without_overrides(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nfrom torch.distributed.fsdp import fully_shard\n")
    code, report = doctor_json(str(tmp_path), "--device", "cpu", "--target-torch", "2.4")
    assert code == 0
    checks = by_name(report)
    assert checks["overrides in the scanned tree"]["status"] == "ok"
    assert not [c for c in report["checks"] if c["name"].startswith("torch >= ")]


def test_doctor_usage_errors(tmp_path):
    assert doctor("--target-torch", "latest").exit_code == 2
    result = doctor(str(tmp_path / "missing"))
    assert result.exit_code == 2 and "no such file or directory" in result.output


# ---------------------------------------------------------------------------------------------
# The probes on their own
# ---------------------------------------------------------------------------------------------
def test_version_checks_are_data_driven():
    reqs = [probes.Requirement("a.target", "2.8", "x.py:3"), probes.Requirement("b.target", "2.6")]
    checks = probes.check_torch_versions("2.7.1+cpu", "installed torch", reqs)
    assert [c.status for c in checks] == ["fail", "ok"]
    assert "(overridden at x.py:3)" in checks[0].message
    assert [c.status for c in probes.check_torch_versions(None, "installed torch", reqs)] == ["skip", "skip"]
    assert probes.check_torch_installed(None, None).status == "fail"
    assert probes.check_torch_installed(None, "2.6").status == "warn"
    assert probes.requirements_for({"a": "p:1", "b": None}, {"a": "2.8"}) == [probes.Requirement("a", "2.8", "p:1")]


def test_kernel_check_fails_for_a_key_without_kernels():
    (cpu, fpga) = probes.check_fsdp_kernels(["CPU", "FPGA"])
    assert cpu.status == "ok"
    assert fpga.status == "fail" and fpga.details["missing"] == list(probes.FSDP_OPS)
    (undefined,) = probes.check_fsdp_kernels(["CPU"], ops=("fsdp::no_such_op",))
    assert undefined.status == "fail" and "not defined in this torch" in undefined.message


def test_dispatch_keys_and_plugins():
    assert [probes.dispatch_key_for(d) for d in ("cpu", "cuda:0", "npu", "xpu", "musa")] == [
        "CPU",
        "CUDA",
        "PrivateUse1",
        "XPU",
        "PrivateUse1",
    ]
    (none,) = probes.check_plugins({}, "2.13.0")
    assert none.status == "warn" and "torch_npu not found" in none.message
    (matching,) = probes.check_plugins({"torch-npu": "2.13.0.post1"}, "2.13.0+cpu")
    assert matching.status == "ok" and matching.message == "torch-npu 2.13.0.post1"
    (mismatched,) = probes.check_plugins({"torch-npu": "2.6.0"}, "2.13.0")
    assert mismatched.status == "warn" and "built for torch 2.6" in mismatched.message


def test_async_probe_classification():
    assert probes.classify_async(0.0001, 0.020)[0] == "ok"  # returned long before the copy was done
    status, message = probes.classify_async(0.019, 0.020)
    assert status == "fail" and "the host waited for the copy" in message
    assert probes.classify_async(0.00001, 0.00005)[0] == "warn"  # too fast to tell
    check = probes.probe_foreach_copy_async("cpu")
    assert check.status == "skip" and "does not apply" in check.message


def test_text_output_prints_brackets_as_written(monkeypatch):
    # Without torch the first check says how to install it: `fsdp-unpatch[verify]`, which rich would
    # take for a markup tag and drop if the message were printed as markup.
    monkeypatch.setattr(probes, "distribution_version", lambda name: None)
    result = CliRunner().invoke(main, ["doctor", "--device", "cpu"], catch_exceptions=False, terminal_width=200)
    assert result.exit_code == 1
    cells = re.sub(r"[\s│]", "", result.output)  # the message wraps inside its table cell
    assert "pipinstall'fsdp-unpatch[verify]')" in cells
