"""Migrating a downstream project: references, tests of removed functions, code in strings.

`tests/fixtures/downstream` leans on the collectives patch both through a patch package in its own tree
(`vendor_patch`) and through torch-npu's module (not installed). `tests/fixtures/downstream_migrated` is
the same tree after `fix --unsafe-fixes`, written by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.upstream import expand

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = FIXTURES / "downstream"
EXPECTED = FIXTURES / "downstream_migrated"
TEST_FILES = ("tests/test_steps.py", "tests/test_npu_compat.py", "tests/test_vendor_patch.py")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True, text=True)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("README.md", "__pycache__"))
    for path in root.rglob("*.py"):
        path.write_text(expand(path.read_text()))  # the vendored patch's upstream copies
    return root


def test_unsafe_fix_migrates_the_whole_project(project: Path) -> None:
    result = cli("fix", "--unsafe-fixes", "--no-color", "--no-show-source", ".", cwd=project)
    # What stays is the code in a string (review) and the enhance patch (keep).
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Found 3 findings (2 review, 1 keep)" in result.stdout
    assert "unsafe fix" not in result.stdout
    assert snapshot(project) == snapshot(EXPECTED)
    assert not (project / "tests" / "test_vendor_patch.py").exists()
    for name, data in snapshot(project).items():
        compile(data, name, "exec")  # every migrated module compiles

    second = cli("fix", "--unsafe-fixes", "--no-color", ".", cwd=project)
    assert "changed 0 files" in second.stdout
    assert snapshot(project) == snapshot(EXPECTED)


def test_remaining_tests_pass_after_migration(project: Path) -> None:
    cli("fix", "--unsafe-fixes", ".", cwd=project)
    assert b"torch_npu" not in b"".join(
        data for name, data in snapshot(project).items() if name not in ("trainer/npu_enhance.py", "trainer/smoke.py")
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 passed" in run.stdout


def test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes(project: Path) -> None:
    before = snapshot(project)
    result = cli("fix", "--no-color", "--no-show-source", ".", cwd=project)
    after = snapshot(project)
    for name in TEST_FILES:
        assert after[name] == before[name], f"{name} changed without --unsafe-fixes"
    assert after["trainer/npu_compat.py"] == (EXPECTED / "trainer/npu_compat.py").read_bytes()
    assert after["trainer/steps.py"] == (EXPECTED / "trainer/steps.py").read_bytes()
    # Three identity assertions, three tests and a class, one test module, the replacement functions and the
    # installer (which go only with the tests that still name them), and the installer's call.
    assert "13 unsafe fixes not applied (use --unsafe-fixes)" in result.stdout
    assert "(fixable with --unsafe-fixes)" in result.stdout

    # A safe run changes nothing more the second time; the unsafe run then ends where a single one does.
    again = cli("fix", "--no-color", ".", cwd=project)
    assert "changed 0 files" in again.stdout and snapshot(project) == after
    cli("fix", "--unsafe-fixes", ".", cwd=project)
    assert snapshot(project) == snapshot(EXPECTED)


def test_findings_and_their_places(project: Path) -> None:
    result = cli("check", "--output-format", "json", ".", cwd=project)
    found = {(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(result.stdout)}
    by_code = {}
    for path, line, column, code in found:
        by_code.setdefault(code, set()).add((path, line, column))
    assert by_code["FSU301"] == {
        ("trainer/npu_compat.py", 15, 12),
        ("trainer/npu_compat.py", 19, 12),
        ("trainer/steps.py", 8, 12),
        ("trainer/steps.py", 13, 5),
    }
    assert by_code["FSU302"] == {
        ("tests/test_npu_compat.py", 13, 5),
        ("tests/test_steps.py", 27, 5),
        ("tests/test_steps.py", 36, 9),
    }
    assert by_code["FSU303"] == {
        ("tests/test_npu_compat.py", 24, 5),
        ("tests/test_npu_compat.py", 28, 7),
        ("tests/test_vendor_patch.py", 11, 5),
        ("tests/test_vendor_patch.py", 17, 5),
    }
    assert by_code["FSU305"] == {("tests/test_vendor_patch.py", 1, 1)}
    # The names inside the dedented code string, at their own lines and columns.
    assert by_code["FSU304"] == {("trainer/smoke.py", 9, 60), ("trainer/smoke.py", 10, 49)}
    smoke = (project / "trainer/smoke.py").read_text().splitlines()
    assert smoke[8][59:].startswith("_patched_all_gather_copy_in")
    assert smoke[9][48:].startswith("_patched_all_gather_copy_in")
    # The catalog-known installer called from downstream code, and the in-tree one from its package.
    assert ("trainer/npu_compat.py", 10, 5) in by_code["FSU004"]
    assert ("vendor_patch/__init__.py", 5, 1) in by_code["FSU004"]
    # Nothing about the enhance patch imported from torch-npu.
    assert not any(path == "trainer/npu_enhance.py" for path, *_ in found)


def test_diff_shows_the_deleted_module(project: Path) -> None:
    result = cli("fix", "--unsafe-fixes", "--diff", ".", cwd=project)
    assert "--- a/tests/test_vendor_patch.py\n+++ /dev/null\n" in result.stdout
    assert (project / "tests/test_vendor_patch.py").exists()
