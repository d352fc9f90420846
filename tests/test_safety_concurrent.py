"""A file changed on disk between reading and writing (an editor saved it) is not written, reported, and fails the run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.fixes import edits as fix_edits
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run import engine as runner
from tests.patch_texts import removable

TAIL = "\n\nVALUE = 1\n"


def _editor_saves_during_the_fix(monkeypatch, target: Path, edit) -> None:
    """Every time the engine computes the fix of `target`, an "editor" changes the file on disk."""
    real = fix_edits.apply_edits  # the engine imports it when it computes a fix

    def apply_edits(analysis, edits, *memo):
        fixed = real(analysis, edits, *memo)
        edit(target)
        return fixed

    monkeypatch.setattr(fix_edits, "apply_edits", apply_edits)


def _append_line(path: Path) -> None:
    with open(path, "a") as handle:
        handle.write("EDITED = True\n")


def _run_fix(root: Path):
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), fix=True)
    return runner.run_together(discover([str(root)]), load_catalog(), options)


@pytest.mark.parametrize("hard_link", [False, True], ids=["renamed", "written-in-place"])
def test_file_saved_by_an_editor_is_not_overwritten(tmp_path: Path, monkeypatch, hard_link: bool) -> None:
    target = tmp_path / "module.py"
    target.write_text(removable() + TAIL)
    if hard_link:
        os.link(target, tmp_path / "link.txt")
    _editor_saves_during_the_fix(monkeypatch, target, _append_line)
    result = _run_fix(tmp_path)
    errors = [f for f in result.findings if f.code == "FSU903"]
    assert [e.message for e in errors] == ["file changed on disk while it was being fixed; not written"]
    assert errors[0].path == "module.py" or errors[0].path.endswith("module.py")
    assert target.read_text() == removable() + TAIL + "EDITED = True\n"  # the editor's version, whole
    assert not result.changed
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["module.py"] + (["link.txt"] if hard_link else []))


def test_same_size_and_same_mtime_edit_is_still_noticed(tmp_path: Path, monkeypatch) -> None:
    """An edit that keeps the size and (restored) mtime is caught by comparing the content."""
    target = tmp_path / "module.py"
    target.write_text(removable() + TAIL)

    def same_size(path: Path) -> None:
        info = path.stat()
        path.write_text(path.read_text().replace("VALUE = 1", "VALUE = 2"))
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))

    _editor_saves_during_the_fix(monkeypatch, target, same_size)
    result = _run_fix(tmp_path)
    assert [f.code for f in result.findings if f.category == "error"] == ["FSU903"]
    assert target.read_text() == removable() + "\n\nVALUE = 2\n"


def test_other_files_are_still_fixed_and_the_command_exits_2(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "edited.py"
    other = tmp_path / "other.py"
    target.write_text(removable() + TAIL)
    other.write_text(removable() + TAIL)
    _editor_saves_during_the_fix(monkeypatch, target, _append_line)
    from fsdp_unpatch.cli import main

    result = CliRunner().invoke(
        main, ["fix", "--isolated", "--no-cache", "--jobs", "1", "--output-format", "concise", str(tmp_path)]
    )
    assert result.exit_code == 2, result.output
    assert "edited.py:1:1: FSU903 [error] file changed on disk while it was being fixed; not written" in result.output
    assert other.read_text() == TAIL
    assert target.read_text().endswith("EDITED = True\n") and "_patched_inputs" in target.read_text()
