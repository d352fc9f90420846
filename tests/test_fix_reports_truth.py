"""What `fix` reports is the fixed tree as it is (issue 12, finding 3; docs/safety.md).

Before: the findings left over kept their pre-fix line numbers and included statements the fix had just deleted
(a phantom finding past the end of a file, exit 1). Now `fix` analyses the changed tree again: its report equals
a fresh `check` of the fixed tree, and it never exits 1 because of a finding it removed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patch_texts import expand

ROOT = Path(__file__).resolve().parent.parent
TREES = {
    "example": ROOT / "examples" / "legacy_project",
    "downstream": ROOT / "tests" / "fixtures" / "downstream",
    "unchanged": ROOT / "tests" / "fixtures" / "unchanged",
    "fix fixtures": ROOT / "tests" / "fixtures" / "fix",
}


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=project, capture_output=True, text=True)


@pytest.mark.parametrize(
    "name, unsafe",
    [
        ("example", False),
        ("example", True),
        ("downstream", False),
        ("downstream", True),
        ("unchanged", False),
        ("fix fixtures", False),
    ],
)
def test_fix_reports_what_a_fresh_check_of_the_fixed_tree_reports(tmp_path: Path, name: str, unsafe: bool) -> None:
    project = tmp_path / "project"
    shutil.copytree(TREES[name], project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    if name == "downstream":
        for path in project.rglob("*.py"):
            path.write_text(expand(path.read_text()))  # the vendored patch's upstream copies
    flags = ["--unsafe-fixes"] if unsafe else []
    fixed = _cli(project, "fix", "--no-cache", *flags, "--output-format", "json", ".")
    assert "Traceback" not in fixed.stderr
    checked = _cli(project, "check", "--no-cache", "--output-format", "json", ".")
    assert json.loads(fixed.stdout) == json.loads(checked.stdout)
    if not any(f["category"] == "error" for f in json.loads(fixed.stdout)):
        assert fixed.returncode == checked.returncode
    for finding in json.loads(fixed.stdout):  # no phantom: every finding lies inside its file as it is now
        lines = (project / finding["path"]).read_bytes().splitlines()
        assert finding["line"] <= max(len(lines), 1), finding


def test_the_example_reports_the_kept_patch_where_it_now_is(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(TREES["example"], project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    fixed = _cli(project, "fix", "--no-cache", "--output-format", "concise", "--show-kept", ".")
    assert fixed.returncode == 0
    lines = [line.split(": ")[0] for line in fixed.stdout.splitlines() if "FSU201" in line]
    # Where the enhance installer's first and last install sites stand in the expected migrated file.
    golden = (
        (TREES["example"].parent / "migrated_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py")
        .read_text()
        .splitlines()
    )
    first = next(n for n, text in enumerate(golden, 1) if "DefaultAllGather.allocate =" in text)
    last = next(n for n, text in enumerate(golden, 1) if "FSDPState._post_forward =" in text)
    assert lines[0].endswith(f"_add_fsdp_patch.py:{first}:5") and lines[-1].endswith(f"_add_fsdp_patch.py:{last}:5")
    assert "Fixed 9, changed 2 files." in fixed.stdout
