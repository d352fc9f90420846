"""The command line by its contract: exit codes, JSON fields, --diff, errors that name the file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.integration import ENHANCE, PATCH
from tests.integration import cli as run_cli
from tests.upstream import expand


def cli(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    """The command line run in this process (tests.integration.cli): these tests read its output and exit
    codes, not the process (tests/test_hostile_outputs.py and others start real processes)."""
    done = run_cli(*args, cwd=cwd, stdin=stdin.encode())
    return subprocess.CompletedProcess(list(args), done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "patch.py").write_text(expand(PATCH))
    (tmp_path / "enhance.py").write_text(ENHANCE)
    (tmp_path / "clean.py").write_text("import os\n\nprint(os.sep)\n")
    return tmp_path


def test_check_reports_and_exits_1(project: Path) -> None:
    result = cli("check", "--no-color", cwd=project)
    assert result.returncode == 1
    assert "patch.py:" in result.stdout and "FSU001" in result.stdout
    assert "FSU201" not in result.stdout  # kept on purpose: counted, listed only with --show-kept
    assert "Found 4 findings (3 remove, 1 keep) in 3 files." in result.stdout
    assert "FSU201" in cli("check", "--no-color", "--show-kept", cwd=project).stdout


def test_json_fields(project: Path) -> None:
    result = cli("check", "--output-format", "json", cwd=project)
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    keys = {"code", "category", "target", "path", "line", "column", "end_line", "end_column", "message", "fix"}
    assert all(set(f) >= keys for f in findings)
    assert [(f["path"], f["line"], f["column"]) for f in findings] == sorted(
        (f["path"], f["line"], f["column"]) for f in findings
    )
    install = next(f for f in findings if f["code"] == "FSU001")
    source = (project / "patch.py").read_text().splitlines()
    line = source[install["line"] - 1]
    # 1-based columns: the reported span is exactly the install target's text.
    assert line[install["column"] - 1 : install["end_column"] - 1] == "C._get_param_all_gather_inputs"
    assert install["end_line"] == install["line"]
    assert install["category"] == "remove"
    assert install["target"] == "_fsdp_collectives._get_param_all_gather_inputs"
    assert install["fix"]["applicability"] == "safe"
    keep = next(f for f in findings if f["code"] == "FSU201")
    assert keep["category"] == "keep" and keep["fix"] is None and keep["path"] == "enhance.py"
    assert {f["code"] for f in findings} == {"FSU001", "FSU002", "FSU003", "FSU201"}


def test_only_keep_findings_exit_0(tmp_path: Path) -> None:
    (tmp_path / "enhance.py").write_text(ENHANCE)
    result = cli("check", "--output-format", "concise", "--show-kept", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "FSU201" in result.stdout


def test_diff_writes_nothing_and_exits_1(project: Path) -> None:
    before = (project / "patch.py").read_bytes()
    result = cli("fix", "--diff", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith("diff --git a/patch.py b/patch.py\n--- a/patch.py\n+++ b/patch.py\n")
    assert "-    C._get_param_all_gather_inputs = _patched_inputs" in result.stdout
    assert (project / "patch.py").read_bytes() == before


def test_fix_then_check_is_clean_and_second_fix_changes_nothing(project: Path) -> None:
    clean_before = (project / "clean.py").read_bytes()
    enhance_before = (project / "enhance.py").read_bytes()
    assert cli("fix", cwd=project).returncode == 0
    # Every statement of patch.py belonged to the patch or was imported only for it.
    assert (project / "patch.py").read_text().strip() == ""
    assert (project / "clean.py").read_bytes() == clean_before
    assert (project / "enhance.py").read_bytes() == enhance_before
    check = cli("check", cwd=project)
    assert check.returncode == 0, check.stdout
    after_first = (project / "patch.py").read_bytes()
    assert cli("fix", "--diff", cwd=project).returncode == 0
    assert cli("fix", cwd=project).returncode == 0
    assert (project / "patch.py").read_bytes() == after_first


def test_unparsable_file_exit_1_others_still_processed(project: Path) -> None:
    (project / "broken.py").write_text("import torch\ndef oops(:\n    pass\ntorch.ops.fsdp.x = None\n")
    result = cli("check", "--output-format", "json", cwd=project)
    assert result.returncode == 1  # a syntax error is a finding, as in ruff
    findings = json.loads(result.stdout)
    error = next(f for f in findings if f["path"] == "broken.py")
    assert error["category"] == "error" and error["code"] == "FSU901" and error["line"] == 2
    assert "syntax error" in error["message"]
    assert any(f["path"] == "patch.py" and f["code"] == "FSU001" for f in findings)
    fixed = cli("fix", cwd=project)
    assert fixed.returncode == 1
    assert "_patched_inputs" not in (project / "patch.py").read_text()


def test_missing_path_and_bad_flags_exit_2(project: Path) -> None:
    missing = cli("check", "nope.py", cwd=project)
    assert missing.returncode == 2 and "nope.py" in missing.stderr
    bad_code = cli("check", "--select", "XYZ1", cwd=project)
    assert bad_code.returncode == 2 and "XYZ1" in bad_code.stderr
    bad_torch = cli("check", "--target-torch", "banana", cwd=project)
    assert bad_torch.returncode == 2 and "banana" in bad_torch.stderr
    assert cli("check", "--no-such-flag", cwd=project).returncode == 2


def test_target_torch_too_old_turns_removal_into_review(project: Path) -> None:
    result = cli("check", "--output-format", "json", "--target-torch", "2.5", cwd=project)
    codes = {f["code"] for f in json.loads(result.stdout)}
    assert "FSU102" in codes and "FSU001" not in codes


def test_select_and_ignore(project: Path) -> None:
    only_keep = cli("check", "--output-format", "json", "--select", "FSU2", cwd=project)
    assert {f["code"] for f in json.loads(only_keep.stdout)} == {"FSU201"}
    assert only_keep.returncode == 0
    no_installer = cli("check", "--output-format", "json", "--ignore", "FSU003", cwd=project)
    assert "FSU003" not in {f["code"] for f in json.loads(no_installer.stdout)}


def test_version_and_help(tmp_path: Path) -> None:
    assert "fsdp-unpatch" in cli("--version", cwd=tmp_path).stdout
    help_text = cli("--help", cwd=tmp_path).stdout
    assert "check" in help_text and "fix" in help_text
