"""One project root for the cache, the configuration search and partial runs (`config/project.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fsdp_unpatch.config.project import Project

PATCH = (
    Path(__file__).resolve().parent.parent / "examples/legacy_project/legacy_npu/distributed/fsdp/_add_fsdp_patch.py"
)


def _project(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.fsdp-unpatch]\nignore = ['FSU2']\n")
    (root / "pkg" / "sub" / "patch.py").write_bytes(PATCH.read_bytes())
    return root


def test_the_root_is_the_nearest_folder_with_pyproject_or_git(tmp_path: Path) -> None:
    root = _project(tmp_path / "real")
    project = Project.of([str(root / "pkg" / "sub" / "patch.py")], cwd=str(tmp_path))
    assert project.root == root and project.folder == root
    assert project.partial_root([str(root / "pkg")]) == str(root)  # a part of it: protected
    assert project.partial_root([str(root)]) is None  # all of it


def test_no_project_keeps_the_cache_in_the_current_folder(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "x.py").write_text("")
    project = Project.of([str(loose / "x.py")], cwd=str(tmp_path))
    assert project.root is None, "the temporary folder lies inside a project: this test needs one outside"
    assert project.folder == tmp_path and project.partial_root([str(loose)]) is None


def test_a_project_reached_through_a_link_is_the_real_one(tmp_path: Path) -> None:
    root = _project(tmp_path / "real")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pyproject.toml").write_text("")  # a project of its own around the link
    (elsewhere / "linked").symlink_to(root / "pkg", target_is_directory=True)
    named = str(elsewhere / "linked" / "sub" / "patch.py")
    assert Project.of([named]).root == root
    # and the command line agrees: the real project's configuration applies (its `ignore` hides FSU2xx)
    done = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--output-format", "json", named],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    codes = {f["code"] for f in json.loads(done.stdout)}
    assert codes and not any(code.startswith("FSU2") for code in codes), codes
    assert (root / ".fsdp_unpatch_cache").is_dir() and not (elsewhere / ".fsdp_unpatch_cache").exists()
