"""Where the tool's reasoning meets a boundary (a namespace package, a partial run, an odd install, the newest
torch): each test is a hostile user's project that a fix once broke or decided wrongly on.

Whether a tree still imports is checked by importing it in a fresh interpreter, not by the tool's own model.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import check_tree, fix_tree
from tests.integration import PATCH
from tests.upstream import expand, expanded_copy

INSTALL = "\n\n_apply_fsdp_patch()\n"


def _imports(root: Path, module: str) -> str:
    """'' when `module` imports from `root` in a fresh interpreter, else the error's last line."""
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    return "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def _errors(result) -> list[str]:
    return [f"{f.path}: {f.message}" for f in result.findings if f.code == "FSU903"]


def test_an_importer_through_a_namespace_package_keeps_the_installer(tmp_path: Path) -> None:
    """`vendor/npu/patch.py` with no `__init__.py` on the way (PEP 420) is `vendor.npu.patch` to an importer at
    the project's top: the import net once knew it as `patch` only, and the fix deleted what it imports."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ns"\nversion = "0"\ndependencies = ["torch>=2.12"]\n')
    patch = tmp_path / "vendor" / "npu" / "patch.py"
    patch.parent.mkdir(parents=True)
    patch.write_text(expand(PATCH) + INSTALL)
    (tmp_path / "launch.py").write_text("from vendor.npu.patch import _apply_fsdp_patch\n")
    before = patch.read_bytes()
    assert _imports(tmp_path, "launch") == ""

    result = fix_tree(tmp_path)

    assert _imports(tmp_path, "launch") == ""
    assert patch.read_bytes() == before
    assert any("launch.py:1 imports _apply_fsdp_patch from vendor.npu.patch" in e for e in _errors(result))


def test_a_relative_import_inside_a_namespace_package_keeps_the_installer(tmp_path: Path) -> None:
    """`from .patch import n` in a sibling module of a namespace package names the same module."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ns"\nversion = "0"\ndependencies = ["torch>=2.12"]\n')
    folder = tmp_path / "vendor" / "npu"
    folder.mkdir(parents=True)
    (folder / "patch.py").write_text(expand(PATCH) + INSTALL)
    (folder / "boot.py").write_text("from .patch import _apply_fsdp_patch\n")
    assert _imports(tmp_path, "vendor.npu.boot") == ""

    result = fix_tree(tmp_path)

    assert _imports(tmp_path, "vendor.npu.boot") == ""
    assert any("boot.py:1 imports _apply_fsdp_patch" in e for e in _errors(result)), _errors(result)


def test_an_installer_kept_for_a_star_importer_stays_kept_on_the_next_run(tmp_path: Path) -> None:
    """The first `fix` keeps the installer that a `from pkg._add_fsdp_patch import *` module still names (emptying it);
    the next run once saw an empty installer (FSU003, orphan) and deleted it with its call: two runs to an
    end, the second against the first's reason to keep it."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "star"\nversion = "0"\n')
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    patch = package / "_add_fsdp_patch.py"  # torch-npu's name for it
    patch.write_text('"""The NPU\'s FSDP2 collectives patch."""\n' + expand(PATCH) + INSTALL)
    (package / "hooks.py").write_text(
        "from pkg._add_fsdp_patch import *\n\n\ndef installer():\n    return _apply_fsdp_patch\n"
    )

    fix_tree(tmp_path)
    once = {p: p.read_bytes() for p in tmp_path.rglob("*.py")}
    left = [
        f"{f.path}:{f.span.line} {f.code}"
        for f in check_tree(tmp_path).findings
        if f.category == "remove" and f.fix is not None
    ]
    fix_tree(tmp_path)

    assert b"def _apply_fsdp_patch" in once[patch]
    assert left == []
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.py")} == once


KERNEL_CASE = Path(__file__).parent / "rules" / "FSU002" / "ok_replacement_that_is_also_a_kernel"


def test_a_replacement_that_is_also_a_kernel_keeps_its_registration_over_two_runs(tmp_path: Path) -> None:
    """A copy of all_gather_copy_in installed over the op packet and registered as the PrivateUse1 kernel
    by its decorator: the fix deleted the function, and the kernel registration (FSU103, review) with it.
    The next run must not take the function that stays for an orphan (FSU002) either."""
    project = expanded_copy(KERNEL_CASE, tmp_path / "project")
    kernels = project / "npu_kernels.py"

    fix_tree(project)
    once = kernels.read_bytes()
    fix_tree(project)

    assert b'@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")\ndef _patched_all_gather_copy_in(' in once
    assert b"torch.ops.fsdp.all_gather_copy_in = " not in once  # the proven install sites still go
    assert kernels.read_bytes() == once
