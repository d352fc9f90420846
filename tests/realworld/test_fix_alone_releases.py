"""Every per-finding fix of a real torch-npu release, applied alone, leaves working code (as
`tests/test_fix_alone.py` checks for the fixtures). The installer's own fix used to leave its importer
(`api_patches.py`, or `torch_npu/__init__.py` in 2.9.1) importing a name it deleted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.realworld.packages import PATCHED
from tests.realworld.test_releases import _fetch
from tests.test_fix_alone import Project, problems_of, reported_fixes

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("version", PATCHED)
def test_each_reported_fix_of_a_release_applied_alone_leaves_working_code(
    version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(_fetch(version) / "torch_npu", tmp_path / "torch_npu")
    fixes = reported_fixes(tmp_path, monkeypatch)
    assert fixes["sarif"] and len(fixes["sarif"]) == len(fixes["json"])
    project = Project(tmp_path)
    failures = [
        f"{format_name} fix over {sorted(fix)}: {problem}"
        for format_name, reported in fixes.items()
        for fix in reported
        for problem in problems_of(project, fix)
    ]
    assert failures == []
