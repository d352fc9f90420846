"""Cross-file decisions about removed patch functions: when a replacement may go, unsafe fixes, positions."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from fsdp_unpatch.files.reading import SourceError, read_source
from fsdp_unpatch.fixes.module_edits import delete_file
from tests.helpers import check_tree, fix_tree
from tests.upstream import expand

PATCH = """\
import torch

# @upstream ops.fsdp.all_gather_copy_in _patched_all_gather_copy_in same-device


def _apply_fsdp_patch():
    torch.ops.fsdp.all_gather_copy_in.default = _patched_all_gather_copy_in
    torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in
"""

USER = """\
from npu_patch import _patched_all_gather_copy_in as copy_in


def gather(*args):
    return copy_in(*args)
"""


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(expand(text))
    return root


def codes(result) -> list[tuple[str, str]]:
    return sorted((Path(f.path).name, f.code) for f in result.findings)


def test_replacement_named_only_by_rewritten_references_goes_in_a_safe_run(tmp_path: Path) -> None:
    tree(tmp_path, {"npu_patch.py": PATCH, "user.py": USER})
    fix_tree(tmp_path)
    assert "_patched_all_gather_copy_in" not in (tmp_path / "npu_patch.py").read_text()
    assert (tmp_path / "user.py").read_text() == (
        "import torch\n\n\ndef gather(*args):\n    return torch.ops.fsdp.all_gather_copy_in(*args)\n"
    )
    assert not fix_tree(tmp_path).changed


def test_star_import_keeps_the_replacement(tmp_path: Path) -> None:
    tree(tmp_path, {"npu_patch.py": PATCH, "user.py": "from npu_patch import *\n\nf = _patched_all_gather_copy_in\n"})
    found = codes(check_tree(tmp_path))
    assert ("npu_patch.py", "FSU001") in found and ("npu_patch.py", "FSU002") not in found
    fix_tree(tmp_path)
    assert "def _patched_all_gather_copy_in(" in (tmp_path / "npu_patch.py").read_text()


def test_unparsable_file_naming_it_keeps_the_replacement(tmp_path: Path) -> None:
    tree(tmp_path, {"npu_patch.py": PATCH, "broken.py": "from npu_patch import _patched_all_gather_copy_in(\n"})
    found = codes(check_tree(tmp_path))
    assert ("broken.py", "FSU901") in found and ("npu_patch.py", "FSU002") not in found


def test_noqa_on_a_reference_keeps_the_replacement(tmp_path: Path) -> None:
    user = USER.replace("return copy_in(*args)", "return copy_in(*args)  # noqa: FSU301")
    tree(tmp_path, {"npu_patch.py": PATCH, "user.py": user})
    result = fix_tree(tmp_path)
    deletion = next(f for f in result.findings if f.code == "FSU002")
    assert deletion.fix is None and not deletion.fixed
    assert "def _patched_all_gather_copy_in(" in (tmp_path / "npu_patch.py").read_text()
    assert (tmp_path / "user.py").read_text() == expand(user)


def test_identity_assertion_outside_tests_is_an_unsafe_fix(tmp_path: Path) -> None:
    check = (
        "import torch\nfrom npu_patch import _patched_all_gather_copy_in\n\n\ndef ready():\n"
        "    assert torch.ops.fsdp.all_gather_copy_in is _patched_all_gather_copy_in, 'patch missing'\n"
        "    return True\n"
    )
    tree(tmp_path, {"npu_patch.py": PATCH, "startup.py": check})
    safe = fix_tree(tmp_path)
    assertion = next(f for f in safe.findings if f.code == "FSU302")
    assert assertion.fix is not None and assertion.fix.applicability == "unsafe" and not assertion.fixed
    # The replacement goes only with the assertion that names it: unsafe too.
    deletion = next(f for f in safe.findings if f.code == "FSU002")
    assert deletion.fix is not None and deletion.fix.applicability == "unsafe"
    assert (tmp_path / "startup.py").read_text() == check
    assert safe.unsafe_fixes_left == 2
    fix_tree(tmp_path, unsafe_fixes=True)
    # (the blank lines above the function were its own; the engine keeps them)
    assert (tmp_path / "startup.py").read_text() == "\n\ndef ready():\n    return True\n"
    assert "_patched_all_gather_copy_in" not in (tmp_path / "npu_patch.py").read_text()


def test_name_inside_a_triple_quoted_string_is_placed_on_its_own_line(tmp_path: Path) -> None:
    text = (
        'import subprocess\nCODE = """\nimport torch\nfrom torch_npu.distributed.fsdp._add_fsdp_patch '
        'import _apply_fsdp_patch\n    _apply_fsdp_patch()\n"""\n'
    )
    tree(tmp_path, {"boot.py": text})
    places = sorted(
        (f.span.line, f.span.column, f.span.end_column) for f in check_tree(tmp_path).findings if f.code == "FSU304"
    )
    lines = text.splitlines()
    assert places == [(4, 56, 73), (5, 5, 22)]
    for line, column, end in places:
        assert lines[line - 1][column - 1 : end - 1] == "_apply_fsdp_patch"


def test_deleting_a_file_that_changed_on_disk_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "test_gone.py"
    path.write_text("x = 1\n")
    source = read_source(path, "test_gone.py")
    path.write_text("x = 2\n")
    with pytest.raises(SourceError, match="changed on disk"):
        delete_file(source)
    assert path.read_text() == "x = 2\n"
    delete_file(read_source(path, "test_gone.py"))
    assert not path.exists()


def test_a_module_that_keeps_its_own_definition_is_not_told_the_name_is_removed(tmp_path: Path) -> None:
    """`__all__` naming a function the module defines and keeps is about that function, not a removed one."""
    from tests.helpers import check_tree
    from tests.upstream import expand

    (tmp_path / "keeps.py").write_text(
        expand(
            "import torch\nimport torch.distributed as dist\n"
            "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n"
            "# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _patched_finalize_backward npu-stream\n\n"
            "FSDPParamGroup.finalize_backward = _patched_finalize_backward\n"
            '__all__ = ["_patched_finalize_backward"]\n'
        )
    )
    (tmp_path / "runner.py").write_text(
        "import subprocess, sys\n\n"
        'CODE = "from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_finalize_backward"\n'
        'subprocess.run([sys.executable, "-c", CODE])\n'
    )
    found = sorted((f.path.rsplit("/", 1)[-1], f.code) for f in check_tree(tmp_path).findings)
    assert ("keeps.py", "FSU304") not in found
    assert ("runner.py", "FSU304") in found
    assert ("keeps.py", "FSU001") in found


def test_identity_assertions_walk_no_module_without_references(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every linked file is asked for its identity assertions; one that names no removed symbol has none, and
    its module is not walked to find that out (each file of a linked group, in each phase, was)."""
    from fsdp_unpatch.analysis.test_modules import identity_assertions

    module = cst.parse_module("assert patched is original\n")

    def walked(*_args):
        raise AssertionError("the module was walked")

    monkeypatch.setattr(cst.Module, "visit", walked)
    assert identity_assertions(module, []) == []
