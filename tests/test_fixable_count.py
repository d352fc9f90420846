"""`check`'s "N fixable" is what `fix` would do (issue 24, item 7): also when a group of fixes is held back,
by the import net (FSU903: a file outside the group imports a name the fix removes) or because a file of
the group cannot be written (read-only). Each tree is checked, then fixed, and the counts compared."""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path

import pytest

from tests.integration import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
PATCH = Path("legacy_npu/distributed/fsdp/_add_fsdp_patch.py")
FIXABLE = re.compile(r" (\d+) fixable with `fsdp-unpatch fix`\.")
FIXED = re.compile(r" Fixed (\d+), changed (\d+) files?\.")


def _example(root: Path) -> Path:
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return project


def _re_exported(project: Path) -> Path:
    """The import net holds the whole group back: another module re-exports names the fix removes."""
    (project / "legacy_npu" / "compat.py").write_text(
        "from legacy_npu.distributed.fsdp._add_fsdp_patch import FSDPParam, dist\n\n__all__ = ['FSDPParam', 'dist']\n"
    )
    return project


def _read_only(project: Path) -> Path:
    """A file of the group cannot be written: the group is held back."""
    path = project / PATCH
    path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    return project


def _fixable(summary: str) -> int:
    match = FIXABLE.search(summary)
    return int(match[1]) if match else 0


def _summary(out: bytes) -> str:
    return out.decode().rstrip().splitlines()[-1]


@pytest.mark.parametrize("blocked", [None, _re_exported, _read_only], ids=["example", "import-net", "read-only"])
def test_check_counts_as_fixable_exactly_what_fix_then_fixes(tmp_path: Path, blocked) -> None:
    project = _example(tmp_path)
    if blocked is not None:
        blocked(project)
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    checked = _summary(cli("check", "--no-cache", "--no-color", ".", cwd=project).stdout)
    previewed = cli("fix", "--diff", "--no-cache", "--no-color", ".", cwd=project)
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before  # check and --diff write nothing
    fixed = FIXED.search(_summary(cli("fix", "--no-cache", "--no-color", ".", cwd=project).stdout))
    assert fixed is not None
    assert _fixable(checked) == int(fixed[1]), checked
    assert f"Would fix {fixed[1]} in" in previewed.stderr.decode()
    if blocked is None:
        assert int(fixed[1]) > 0  # the comparison is not a trivial 0 == 0
    else:
        assert int(fixed[1]) == 0 and (project / PATCH).read_bytes() == before[project / PATCH]
        assert "held back" in checked  # says why the count is lower than the remove findings


def test_a_held_back_fix_is_marked_in_the_listing_and_in_the_statistics(tmp_path: Path) -> None:
    project = _re_exported(_example(tmp_path))
    listing = cli("check", "--no-cache", "--no-color", "--output-format", "concise", ".", cwd=project).stdout.decode()
    remove = [line for line in listing.splitlines() if "[remove]" in line]
    assert remove and not [line for line in remove if line.endswith("(fixable)")]
    assert all("(fix held back: " in line for line in remove)
    statistics = cli("check", "--no-cache", "--statistics", ".", cwd=project).stdout.decode()
    assert "[*]" not in statistics


def test_the_cached_verdict_follows_the_tree(tmp_path: Path) -> None:
    """A warm `check` takes the verdict from the cache (no fix is run again), but never a stale one: a new
    importer of a removed name, or a read-only file, changes it at once."""
    project = _example(tmp_path)

    def fixable() -> int:
        return _fixable(_summary(cli("check", "--no-color", ".", cwd=project).stdout))

    assert fixable() == fixable() == 9  # cold, then warm
    _re_exported(project)
    assert fixable() == 0
    (project / "legacy_npu" / "compat.py").unlink()
    assert fixable() == 9
    _read_only(project)
    assert fixable() == 0


def test_json_says_which_fixes_are_held_back(tmp_path: Path) -> None:
    """A program reading the JSON report counts what `check` counts: a fix whose `held_back` is null."""
    project = _example(tmp_path)
    plain = json.loads(cli("check", "--no-cache", "--output-format", "json", ".", cwd=project).stdout)
    assert [f for f in plain if f["fix"]] and all(f["fix"]["held_back"] is None for f in plain if f["fix"])
    _re_exported(project)
    blocked = json.loads(cli("check", "--no-cache", "--output-format", "json", ".", cwd=project).stdout)
    held = [f for f in blocked if f["fix"] and f["fix"]["applicability"] == "safe"]
    assert held and all("legacy_npu/compat.py:1 imports" in f["fix"]["held_back"] for f in held)
