"""No fix leaves code that no longer imports (issue 25, reproductions 1, 2, 3, 5 and 6; docs/safety.md).

Each test builds a tree the way the hostile campaign did (the bundled example, plus a second name for the patch
module, a re-export, a single-file entry point, `--unsafe-fixes` on tests, an unreadable launcher), runs `fix`,
and asserts with a check written apart from the tool (`tests/import_check.py`) that every `from M import n`
of a module of the tree is still bound. Where the fix had to be refused, the refusal names the importer.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import fix_tree
from tests.import_check import unbound_imports
from tests.integration import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
PATCH = Path("legacy_npu/distributed/fsdp/_add_fsdp_patch.py")
CALLER = Path("legacy_npu/_api_patches.py")


def _project(root: Path) -> Path:
    """The example (its `pyproject.toml` marks the project root)."""
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return project


def _errors(result) -> list[str]:
    return [f"{f.path}: {f.message}" for f in result.findings if f.code == "FSU903"]


def _launcher(project: Path, module: str) -> Path:
    launcher = project / "launch.py"
    launcher.write_text(f"from {module} import _apply_fsdp_patch\n\n_apply_fsdp_patch()\n")
    return launcher


def test_the_example_is_still_migrated_whole(tmp_path: Path) -> None:
    """The net refuses nothing correct: the bundled example is fixed as before, and imports."""
    project = _project(tmp_path)
    result = fix_tree(project)
    assert not _errors(result)
    assert (project / PATCH).read_bytes() == (EXAMPLE.parent / "migrated_project" / PATCH).read_bytes()
    assert unbound_imports(project) == []


# reproduction 1: a file reachable under two names -----------------------------------------------------
@pytest.mark.parametrize("how", ["hard link", "symbolic link", "linked folder"])
def test_an_importer_of_a_second_name_of_the_patch_module_still_imports(tmp_path: Path, how: str) -> None:
    project = _project(tmp_path)
    fsdp = project / PATCH.parent
    if how == "hard link":
        os.link(fsdp / PATCH.name, fsdp / "patch_alias.py")
        module = "legacy_npu.distributed.fsdp.patch_alias"
    elif how == "symbolic link":
        (fsdp / "patch_alias.py").symlink_to(PATCH.name)
        module = "legacy_npu.distributed.fsdp.patch_alias"
    else:
        (project / "legacy_npu" / "fsdp_alias").symlink_to(Path("distributed") / "fsdp")
        module = "legacy_npu.fsdp_alias._add_fsdp_patch"
    _launcher(project, module)
    result = fix_tree(project)
    assert unbound_imports(project) == []
    assert any("launch.py:1 imports _apply_fsdp_patch" in e for e in _errors(result)), _errors(result)


def test_two_copies_of_a_package_in_one_run_both_still_import(tmp_path: Path) -> None:
    project = _project(tmp_path)
    copy = project / "build" / "lib"
    copy.mkdir(parents=True)
    shutil.copytree(project / "legacy_npu", copy / "legacy_npu")
    (copy / "launch.py").write_text(
        "from legacy_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch\n\n_apply_fsdp_patch()\n"
    )
    fix_tree(project)
    assert unbound_imports(project) == []
    assert unbound_imports(copy) == []


# reproduction 2: names re-exported from the patch module ------------------------------------------------
def test_names_re_exported_from_the_patch_module_stay_bound(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "legacy_npu" / "compat.py").write_text(
        "from legacy_npu.distributed.fsdp._add_fsdp_patch import FSDPParam, dist\n\n__all__ = ['FSDPParam', 'dist']\n"
    )
    result = fix_tree(project)
    assert unbound_imports(project) == []
    errors = _errors(result)
    assert any("compat.py:1 imports" in e and str(PATCH) in e for e in errors), errors
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()  # its whole group held back
    assert (project / CALLER).read_bytes() == (EXAMPLE / CALLER).read_bytes()


@pytest.mark.parametrize(
    "importer",
    [
        "from legacy_npu.distributed.fsdp import (  # " + "x" * 300 + "\n    dist,\n)\n",
        "import legacy_npu.distributed.fsdp as f\n\nd = (f.  # " + "y" * 300 + "\t\n    dist)\n",
    ],
    ids=["from-import", "attribute"],
)
def test_a_name_read_through_a_star_re_export_after_a_long_comment_stays_bound(tmp_path: Path, importer: str) -> None:
    """The import net's byte gate looks past a comment of any length between the bracket and the name."""
    project = _project(tmp_path)
    package = project / "legacy_npu" / "distributed" / "fsdp" / "__init__.py"
    package.write_text(
        package.read_text() + "from legacy_npu.distributed.fsdp._add_fsdp_patch import *  # noqa: F403\n"
    )
    (project / "legacy_npu" / "compat.py").write_text(importer)
    errors = _errors(fix_tree(project))
    assert any("compat.py" in e and "dist" in e for e in errors), errors
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()  # its whole group held back


def test_a_re_export_through_a_module_alias_stays_bound(tmp_path: Path) -> None:
    """`import M as x` then `x.n`, and `from pkg import M` then `M.n`: the other spelling of an import."""
    project = _project(tmp_path)
    (project / "legacy_npu" / "compat.py").write_text(
        "import legacy_npu.distributed.fsdp._add_fsdp_patch as patch\n\nParam = patch.FSDPParam\n"
    )
    (project / "legacy_npu" / "compat2.py").write_text(
        "from legacy_npu.distributed.fsdp import _add_fsdp_patch\n\ncollectives = _add_fsdp_patch.dist\n"
    )
    result = fix_tree(project)
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()
    assert any("compat.py:3 imports FSDPParam" in e for e in _errors(result)), _errors(result)


# reproduction 3: single-file entry points ---------------------------------------------------------------
def test_fix_from_stdin_keeps_an_installer_another_file_imports(tmp_path: Path) -> None:
    project = _project(tmp_path)
    buffer = (project / PATCH).read_bytes()
    result = cli("fix", "--stdin-filename", str(PATCH), "-", cwd=project, stdin=buffer)
    assert b"def _apply_fsdp_patch" in result.stdout  # `_api_patches.py` imports it
    # `fix --stdin-filename F` judges F as `fix F` does: the importer outside the run keeps the installer
    # (standard output carries F alone, so a fix that needs the importer changed too would break its import)
    assert b"legacy_npu/_api_patches.py (not in this run) names it" in result.stderr
    assert (project / PATCH).read_bytes() == buffer


def test_fix_from_stdin_without_a_project_removes_nothing_importable(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "pyproject.toml").unlink()  # no pyproject.toml, no .git: no project to search
    buffer = (project / PATCH).read_bytes()
    result = cli("fix", "--stdin-filename", str(PATCH), "-", cwd=project, stdin=buffer)
    assert result.stdout == buffer
    assert b"no project root" in result.stderr + result.stdout


def test_a_codemod_on_one_module_keeps_an_installer_another_file_imports(tmp_path: Path) -> None:
    import libcst as cst
    from libcst.codemod import CodemodContext

    from fsdp_unpatch.codemods._base import ProjectFixes
    from fsdp_unpatch.codemods.unpatch import Unpatch

    project = _project(tmp_path)
    source = (project / PATCH).read_text()

    class NoRunnerData:  # the module alone, as when libcst's runner has no project data for it
        def get_cache_for_path(self, path: str) -> dict:
            return {ProjectFixes: {}}

    module = "legacy_npu.distributed.fsdp._add_fsdp_patch"
    context = CodemodContext(filename=str(project / PATCH), full_module_name=module, metadata_manager=NoRunnerData())
    fixed = Unpatch(context).transform_module(cst.parse_module(source))
    assert "def _apply_fsdp_patch" in fixed.code
    # the same module in a project where nothing imports the installer: the codemod fixes it
    (project / CALLER).write_text('"""No caller."""\n')
    (project / "legacy_npu" / "__init__.py").write_text("")
    (project / "train.py").write_text("")
    fixed = Unpatch(context).transform_module(cst.parse_module(source))
    assert "def _apply_fsdp_patch" not in fixed.code


# reproduction 5: --unsafe-fixes on tests ----------------------------------------------------------------
TEST_MODULE = '''"""Tests of the collectives patch."""
from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_get_param_all_gather_inputs


def make_params():
    return []


def test_patched_inputs_of_no_parameters():
    assert _patched_get_param_all_gather_inputs(make_params()) == []
'''


def test_unsafe_fixes_keep_a_test_module_that_conftest_imports(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_npu_patch.py").write_text(TEST_MODULE)
    (tests / "conftest.py").write_text("from test_npu_patch import make_params\n\nPARAMS = make_params()\n")
    result = fix_tree(tmp_path, unsafe_fixes=True)
    assert (tests / "test_npu_patch.py").exists()
    assert unbound_imports(tests) == []
    assert any("conftest.py:1 imports make_params" in e for e in _errors(result)), _errors(result)


TEST_CLASSES = """from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in
import torch


class TestCopyIn:
    def test_copy_in_is_patched(self):
        assert torch.ops.fsdp.all_gather_copy_in is _patched_all_gather_copy_in


class TestMore(TestCopyIn):
    def test_native(self):
        assert torch.ops.fsdp.all_gather_copy_in is not None
"""


def test_unsafe_fixes_keep_a_test_class_that_a_kept_class_extends(tmp_path: Path) -> None:
    (tmp_path / "test_classes.py").write_text(TEST_CLASSES)
    result = fix_tree(tmp_path, unsafe_fixes=True)
    text = (tmp_path / "test_classes.py").read_text()
    # The class a kept class extends is not deleted (FSU303 keeps it); only its identity assertion goes (FSU302).
    assert "class TestMore(TestCopyIn)" in text and "class TestCopyIn:" in text
    assert "_patched_all_gather_copy_in" not in text
    assert _errors(result) == []
    assert unbound_imports(tmp_path) == []
    compile(text, "test_classes.py", "exec")


# reproduction 6: unreadable paths outside the patch package -------------------------------------------
def test_an_unreadable_launcher_holds_back_the_installer_deletion(tmp_path: Path, monkeypatch) -> None:
    from fsdp_unpatch.files import writing

    project = _project(tmp_path)
    launcher = str(_launcher(project, "legacy_npu.distributed.fsdp._add_fsdp_patch"))
    real_open, real_builtin = os.open, open

    def refusing(path, *args, **kwargs):  # as root, mode 000 is still readable: refuse like the kernel would
        if os.fspath(path) == launcher:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    def refusing_builtin(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) == launcher:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_builtin(path, *args, **kwargs)

    monkeypatch.setattr(writing.os, "open", refusing)
    monkeypatch.setattr("builtins.open", refusing_builtin)
    result = fix_tree(project)
    monkeypatch.undo()
    assert any(f.code == "FSU902" and f.path.endswith("launch.py") for f in result.findings)
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()
    assert unbound_imports(project) == []
    assert any("launch.py cannot be read" in e for e in _errors(result)), _errors(result)
