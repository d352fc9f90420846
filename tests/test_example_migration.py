"""The bundled example, migrated end to end with the real CLI and compared byte for byte."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True, text=True)


def tree_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".fsdp_unpatch_cache" not in p.parts
    }


def test_fix_gives_the_expected_tree(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "legacy_project", project, ignore=shutil.ignore_patterns("__pycache__"))

    preview = cli("fix", "--diff", ".", cwd=project)
    assert preview.returncode == 1
    assert "-def _apply_fsdp_patch():" in preview.stdout
    assert tree_files(project) == tree_files(EXAMPLES / "legacy_project"), "--diff must write nothing"

    fixed = cli("fix", ".", cwd=project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert tree_files(project) == tree_files(EXAMPLES / "migrated_project")

    check = cli("check", "--output-format", "json", ".", cwd=project)
    assert check.returncode == 0, check.stdout
    findings = json.loads(check.stdout)
    assert findings and {f["category"] for f in findings} == {"keep"}
    kept = {f["target"] for f in findings}
    assert "_fsdp_collectives.DefaultAllGather.allocate" in kept
    assert "_fsdp_param_group.foreach_reduce" in kept

    again = cli("fix", ".", cwd=project)
    assert again.returncode == 0
    assert tree_files(project) == tree_files(EXAMPLES / "migrated_project")


def test_check_on_the_legacy_project_reports_every_part(tmp_path: Path) -> None:
    # The cache goes to tmp_path: at the example's project root it would be written into this repository.
    cache = str(tmp_path / "cache")
    result = cli(
        "check", "--cache-dir", cache, "--output-format", "json", str(EXAMPLES / "legacy_project"), cwd=tmp_path
    )
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    by_code: dict[str, list] = {}
    for finding in findings:
        by_code.setdefault(finding["code"], []).append(finding)
    assert len(by_code["FSU001"]) == 4  # three targets, the op packet and its .default
    assert {f["target"] for f in by_code["FSU001"]} == {
        "_fsdp_collectives._get_param_all_gather_inputs",
        "ops.fsdp.all_gather_copy_in",
        "ops.fsdp.all_gather_copy_in.default",
        "_fsdp_param_group.FSDPParamGroup.finalize_backward",
    }
    assert len(by_code["FSU002"]) == 3
    assert len(by_code["FSU003"]) == 1
    installer_call = by_code["FSU004"]
    assert [Path(f["path"]).name for f in installer_call] == ["_api_patches.py"]
    assert len(by_code["FSU201"]) == 7
    assert all(f["category"] == "keep" for f in by_code["FSU201"])
