"""A run over part of a project (a pre-commit hook passes a few files) never breaks the files it does not see."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PATCH_MODULE = Path("legacy_npu/distributed/fsdp/_add_fsdp_patch.py")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True, text=True)


def test_installer_named_by_a_file_outside_the_run_stays(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "legacy_project", project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pyproject.toml").write_text("[project]\nname = 'legacy'\n")
    api_patches = (project / "legacy_npu/_api_patches.py").read_bytes()

    result = cli("fix", "--no-cache", str(PATCH_MODULE), cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr
    patched = (project / PATCH_MODULE).read_text()
    # The overrides go; the installer, still called from _api_patches.py (not in the run), stays.
    assert "_patched_get_param_all_gather_inputs" not in patched
    assert "def _apply_fsdp_patch():" in patched
    assert "_api_patches.py (not in this run) names it" in result.stdout
    assert (project / "legacy_npu/_api_patches.py").read_bytes() == api_patches
    # Every module still imports: nothing names a deleted definition.
    check = subprocess.run(
        [sys.executable, "-c", "import legacy_npu._api_patches"], cwd=project, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr

    # Run over the whole project, the migration completes and equals the expected tree's patch module.
    assert cli("fix", "--no-cache", ".", cwd=project).returncode == 0
    assert (project / PATCH_MODULE).read_bytes() == (EXAMPLES / "migrated_project" / PATCH_MODULE).read_bytes()
