"""`# noqa` (check and fix), `# fsdp-unpatch: skip-file`, and unused `# noqa` codes (FSU501)."""

from __future__ import annotations

from pathlib import Path

from fsdp_unpatch.config.settings import Settings
from tests.helpers import check_tree, fix_tree
from tests.upstream import expand

PATCH = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _patched_get_param_all_gather_inputs same-device


def _apply_fsdp_patch():
    _fsdp_collectives._get_param_all_gather_inputs = _patched_get_param_all_gather_inputs{comment}
"""
CALLER = """\
from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch


def register():
    _apply_fsdp_patch(){comment}
"""


def _patch_tree(root: Path, site_comment: str = "", call_comment: str = "", caller_head: str = "") -> tuple[Path, Path]:
    package = root / "torch_npu" / "distributed" / "fsdp"
    package.mkdir(parents=True)
    for folder in (root / "torch_npu", package.parent, package):
        (folder / "__init__.py").write_text("")
    patch = package / "_add_fsdp_patch.py"
    patch.write_text(expand(PATCH.format(comment=site_comment)))
    caller = root / "torch_npu" / "api.py"
    caller.write_text(caller_head + CALLER.format(comment=call_comment))
    return patch, caller


def _codes(result) -> list[str]:
    return sorted(f.code for f in result.findings)


def test_without_comments_everything_goes(tmp_path: Path) -> None:
    patch, caller = _patch_tree(tmp_path)
    assert _codes(check_tree(tmp_path)) == ["FSU001", "FSU002", "FSU003", "FSU004"]
    fix_tree(tmp_path)
    assert "_patched_get_param_all_gather_inputs" not in patch.read_text()
    assert "_apply_fsdp_patch" not in caller.read_text()


def test_noqa_with_the_code_keeps_the_site_and_everything_depending_on_it(tmp_path: Path) -> None:
    patch, caller = _patch_tree(tmp_path, site_comment="  # noqa: FSU001")
    before = patch.read_bytes(), caller.read_bytes()
    result = check_tree(tmp_path)
    assert "FSU001" not in _codes(result)
    assert all(f.fix is None for f in result.findings), "nothing depending on the kept site may be fixable"
    fix_tree(tmp_path)
    assert (patch.read_bytes(), caller.read_bytes()) == before


def test_bare_noqa_suppresses_and_another_code_does_not(tmp_path: Path) -> None:
    _patch_tree(tmp_path / "bare", site_comment="  # noqa")
    assert "FSU001" not in _codes(check_tree(tmp_path / "bare"))
    _patch_tree(tmp_path / "other", site_comment="  # noqa: FSU101")
    codes = _codes(check_tree(tmp_path / "other"))
    assert "FSU001" in codes and "FSU501" in codes  # FSU101 suppresses nothing there


def test_suppressed_installer_call_keeps_the_installer(tmp_path: Path) -> None:
    patch, caller = _patch_tree(tmp_path, call_comment="  # noqa: FSU004")
    fix_tree(tmp_path)
    assert "def _apply_fsdp_patch" in patch.read_text(), "the call stays, so the installer must stay"
    assert "_apply_fsdp_patch()" in caller.read_text()
    # The install site and replacement still go: the installer stays, emptied.
    assert "_patched_get_param_all_gather_inputs" not in patch.read_text()
    compile(patch.read_text(), str(patch), "exec")


def test_skip_file_is_neither_reported_nor_fixed(tmp_path: Path) -> None:
    patch, caller = _patch_tree(tmp_path)
    patch.write_text("# fsdp-unpatch: skip-file\n" + patch.read_text())
    before = patch.read_bytes()
    assert _codes(check_tree(tmp_path)) == []
    fix_tree(tmp_path)
    assert patch.read_bytes() == before


def test_skipped_caller_keeps_the_installer(tmp_path: Path) -> None:
    patch, caller = _patch_tree(tmp_path, caller_head="# fsdp-unpatch: skip-file\n")
    before = caller.read_bytes()
    result = check_tree(tmp_path)
    assert [f.fix for f in result.findings if f.code == "FSU003"] == [None]
    fix_tree(tmp_path)
    assert caller.read_bytes() == before
    assert "def _apply_fsdp_patch" in patch.read_text()


def test_skip_file_must_be_a_comment_line_of_its_own(tmp_path: Path) -> None:
    patch, _ = _patch_tree(tmp_path)
    patch.write_text('NOTE = "# fsdp-unpatch: skip-file"\n' + patch.read_text())
    assert "FSU001" in _codes(check_tree(tmp_path))


UNUSED = """\
from torch.distributed.fsdp._fully_shard import _fsdp_state


def _lazy_init(self):
    return None


_fsdp_state.FSDPState._lazy_init = _lazy_init  # noqa: FSU101
_fsdp_state.FSDPState._pre_backward = _lazy_init  # noqa: FSU001, E501
x = 1  # noqa: FSU001
y = 2  # noqa
z = 3  # noqa: E501, F401
w = 4  # noqa: FSU999
text = "# noqa: FSU001"
v = 5  # noqa: FSU001, FSU501
"""


def test_unused_noqa_codes_are_reported_like_ruff(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(UNUSED)
    found = sorted((f.code, f.span.line, f.span.column) for f in check_tree(tmp_path).findings)
    assert found == [
        ("FSU101", 9, 1),  # line 8's FSU101 is suppressed; line 9 names another code
        ("FSU501", 9, 59),  # FSU001 suppresses nothing on line 9 (E501 is not ours)
        ("FSU501", 10, 16),
        ("FSU501", 13, 16),  # unknown code; line 15's unused FSU001 is silenced by FSU501
    ]


def test_unused_noqa_ignores_codes_the_run_does_not_select(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(UNUSED)
    settings = Settings(ignore=("FSU001",))
    found = sorted((f.code, f.span.line) for f in check_tree(tmp_path, selected=settings.is_selected).findings)
    assert found == [("FSU101", 9), ("FSU501", 13)]


def test_unused_noqa_can_be_ignored(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(UNUSED)
    settings = Settings(ignore=("FSU5",))
    assert "FSU501" not in _codes(check_tree(tmp_path, selected=settings.is_selected))


def test_reported_applies_each_kind_of_noqa_and_reads_the_text_only_when_needed() -> None:
    """`suppression.reported`, the one place noqa comments apply (a layout test holds it so)."""
    from dataclasses import dataclass

    from fsdp_unpatch.analysis.suppression import reported
    from fsdp_unpatch.rules.registry import all_rules

    all_rules()  # FSU502 declares the code a noqa without colon cannot silence

    @dataclass(frozen=True)
    class Found:
        code: str
        line: int

    text = "a  # noqa: FSU001\nb  # noqa\nc  # NOQA FSU502\nd\r\ne  # noqa: fsu101\n"
    found = [Found("FSU001", 1), Found("FSU101", 1), Found("FSU101", 2), Found("FSU502", 3), Found("FSU101", 3)]
    found += [Found("FSU101", 4), Found("FSU101", 5), Found("FSU101", 0), Found("FSU101", 9)]
    asked: list[str] = []

    def read() -> str:
        asked.append("text")
        return text

    shown = reported(found, lambda f: f.line, read, ignore_noqa=False)
    # the code named, a bare noqa, a noqa without colon but for FSU502's own finding, any case; lines outside
    # the file hold no comment
    assert shown == [Found("FSU101", 1), Found("FSU502", 3), Found("FSU101", 4), Found("FSU101", 0), Found("FSU101", 9)]
    assert reported(found, lambda f: f.line, read, ignore_noqa=True) == found
    assert reported([], lambda f: f.line, read, ignore_noqa=False) == []
    assert asked == ["text"]  # neither under --ignore-noqa nor for a file with no finding
    assert reported(found, lambda f: 1 / 0, lambda: "no comment\n", ignore_noqa=False) == found  # not placed
