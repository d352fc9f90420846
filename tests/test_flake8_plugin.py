"""The real flake8, in a subprocess, reports what `fsdp-unpatch check` reports: same codes, same 1-based positions."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from fsdp_unpatch.integrations.flake8 import cross_file_codes
from tests.integration import cli, make_project

ROOT = Path(__file__).resolve().parent.parent

LINE = re.compile(r"(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>FSU\d{3}) (?P<message>.*)")


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True)


def _flake8_findings(stdout: str) -> list[tuple]:
    reported = [LINE.fullmatch(line) for line in stdout.splitlines()]
    assert all(reported), stdout
    return [(m["path"].removeprefix("./"), int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in reported]


def test_flake8_reports_the_same_findings_as_check(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    # single-file semantics: compare file by file, as flake8 sees them
    expected = []
    for name in ("patch.py", "enhance.py", "clean.py"):
        result = cli("check", "--output-format", "json", f"pkg/{name}", cwd=project)
        expected += [(f["path"], f["line"], f["column"], f["code"], f["message"]) for f in json.loads(result.stdout)]
    result = flake8(
        "--select", "FSU", "--fsdp-unpatch-keep", "pkg/patch.py", "pkg/enhance.py", "pkg/clean.py", cwd=project
    )
    assert result.returncode == 1, result.stderr
    reported = [LINE.fullmatch(line) for line in result.stdout.splitlines()]
    assert all(reported), result.stdout
    found = [(m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in reported]
    assert sorted(found) == sorted(expected)
    assert {code for *_, code, _ in found} == {"FSU001", "FSU002", "FSU003", "FSU201"}


def test_flake8_columns_are_one_based(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = flake8("--select", "FSU001", "pkg/patch.py", cwd=project)
    (line,) = result.stdout.splitlines()
    match = LINE.fullmatch(line)
    assert match is not None
    source_line = (project / "pkg" / "patch.py").read_text().splitlines()[int(match["line"]) - 1]
    # the install site is indented by four spaces inside the installer: it starts in column 5
    assert source_line[int(match["col"]) - 1 :].startswith("C._get_param_all_gather_inputs = ")


def test_flake8_ignore_and_clean_files(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = flake8("--select", "FSU", "--fsdp-unpatch-keep", "--extend-ignore", "FSU0", "pkg", cwd=project)
    assert result.returncode == 1 and "FSU201" in result.stdout and "FSU00" not in result.stdout
    assert flake8("--select", "FSU", "pkg/clean.py", cwd=project).returncode == 0


# Another module of the legacy project that names a removed replacement, and a test asserting the patch:
# findings that come from the patch module, which flake8 cannot see while it looks at these files.
USES_REMOVED = """\
from legacy_npu.distributed.fsdp._add_fsdp_patch import _patched_finalize_backward


def finalize(group):
    return _patched_finalize_backward(group)
"""
ASSERTS_PATCH = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

from legacy_npu.distributed.fsdp._add_fsdp_patch import _patched_finalize_backward


def test_patch_installed():
    assert FSDPParamGroup.finalize_backward is _patched_finalize_backward
"""


def test_flake8_and_check_agree_on_a_whole_tree(tmp_path: Path) -> None:
    """The real flake8 and `check` on the same tree: flake8 reports every non-keep finding of `check`
    except the cross-file ones docs/integrations.md names, and nothing else; keep findings only when asked."""
    tree = tmp_path / "legacy_project"
    shutil.copytree(ROOT / "examples" / "legacy_project", tree)
    (tree / "legacy_npu" / "uses_removed.py").write_text(USES_REMOVED)
    (tree / "tests").mkdir()
    (tree / "tests" / "test_patch.py").write_text(ASSERTS_PATCH)

    checked = json.loads(cli("check", "--output-format", "json", ".", cwd=tree).stdout)
    by_check = {(f["path"], f["line"], f["column"], f["code"], f["message"]): f["category"] for f in checked}
    result = flake8("--select", "FSU", ".", cwd=tree)
    assert result.returncode == 1, result.stderr
    by_flake8 = set(_flake8_findings(result.stdout))

    assert by_flake8 <= set(by_check)
    missed = {key for key in set(by_check) - by_flake8 if by_check[key] != "keep"}
    assert missed and {code for _, _, _, code, _ in missed} <= cross_file_codes()
    assert {code for _, _, _, code, _ in missed} >= {"FSU004", "FSU301"}  # the installer call, the import
    assert not [k for k in by_flake8 if by_check[k] == "keep"]  # FSU2xx are not emitted by default
    assert check_exit_code(tree) == 1

    with_keep = set(_flake8_findings(flake8("--select", "FSU", "--fsdp-unpatch-keep", ".", cwd=tree).stdout))
    assert {k for k in with_keep - by_flake8} == {k for k in by_check if by_check[k] == "keep"} != set()


def check_exit_code(tree: Path) -> int:
    return cli("check", ".", cwd=tree).returncode


def test_flake8_on_the_migrated_example_agrees_with_check() -> None:
    """The issue's case: `check` exits 0 on the migrated project (only keep findings), so does flake8."""
    migrated = ROOT / "examples" / "migrated_project"
    assert cli("check", "--no-cache", ".", cwd=migrated).returncode == 0
    result = flake8("--select", "FSU", ".", cwd=migrated)
    assert result.returncode == 0 and result.stdout == "", result.stdout
    keep = flake8("--select", "FSU", "--fsdp-unpatch-keep", ".", cwd=migrated)
    assert keep.returncode == 1 and {m[3] for m in _flake8_findings(keep.stdout)} == {"FSU201"}


def test_flake8_reads_the_projects_configuration(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\ntarget-torch = "2.5"\n')
    codes = {m[3] for m in _flake8_findings(flake8("--select", "FSU", "pkg/patch.py", cwd=project).stdout)}
    assert codes == {"FSU102"}  # below 2.6 the override is review, as `check` says
    check = json.loads(cli("check", "--output-format", "json", "pkg/patch.py", cwd=project).stdout)
    assert {f["code"] for f in check} == codes
