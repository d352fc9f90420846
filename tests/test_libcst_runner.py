"""libcst's own codemod runner (`python -m libcst.tool codemod`), run for real in a subprocess, gives the
same tree as `fsdp-unpatch fix` on the example legacy project, cross-file installer calls included."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration import cli

pytestmark = pytest.mark.slow  # runs libcst's codemod runner in subprocesses

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "examples" / "legacy_project"
API_PATCHES = Path("legacy_npu") / "_api_patches.py"


def codemod(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", "--hide-progress", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def tree(root: Path) -> dict[str, bytes]:
    # `fix` analyses the fixed tree again through the result cache (docs/safety.md): the cache is not source;
    # nor is the bytecode Python writes when the runner imports the project's own codemods.
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".fsdp_unpatch_cache" not in p.parts and "__pycache__" not in p.parts
    }


def fixed_by_the_cli(tmp_path: Path) -> dict[str, bytes]:
    reference = tmp_path / "reference"
    shutil.copytree(LEGACY, reference)
    assert cli("fix", ".", cwd=reference).returncode == 0
    result = tree(reference)
    assert result != tree(LEGACY), "the legacy project holds a patch: the fix must change it"
    return result


def test_unpatch_under_libcst_runner_equals_fsdp_unpatch_fix(tmp_path: Path) -> None:
    expected = fixed_by_the_cli(tmp_path)
    work = tmp_path / "work"
    shutil.copytree(LEGACY, work)
    # -x: no configuration needed, the command is named by module and class
    result = codemod(
        "-x", "fsdp_unpatch.codemods.unpatch.Unpatch", "--no-format", "--jobs", "2", str(work), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "Failed to codemod 0 files" in result.stderr
    assert tree(work) == expected
    # the installer's call in another module went too: that needed the whole run, not one file
    assert b"_apply_fsdp_patch" not in (work / API_PATCHES).read_bytes()


def test_a_project_with_its_own_codemods_package_keeps_it(tmp_path: Path) -> None:
    """fsdp-unpatch's codemods install as `fsdp_unpatch.codemods`: a project's own top-level `codemods`
    package (first on sys.path: libcst's runner runs from the project) neither hides them nor is hidden."""
    expected = fixed_by_the_cli(tmp_path)
    work = tmp_path / "work"
    shutil.copytree(LEGACY, work)
    own = work / "codemods"
    own.mkdir()
    (own / "__init__.py").write_text("")
    (own / "mine.py").write_text(
        "from libcst.codemod import VisitorBasedCodemodCommand\n\n\n"
        "class Mine(VisitorBasedCodemodCommand):\n"
        '    DESCRIPTION = "the project\'s own codemod: changes nothing"\n'
    )
    expected = {**expected, "codemods/__init__.py": b"", "codemods/mine.py": (own / "mine.py").read_bytes()}
    ours = codemod("-x", "fsdp_unpatch.codemods.unpatch.Unpatch", "--no-format", ".", cwd=work)
    assert ours.returncode == 0, ours.stderr
    assert tree(work) == expected
    theirs = codemod("-x", "codemods.mine.Mine", "--no-format", ".", cwd=work)
    assert theirs.returncode == 0, theirs.stderr
    assert tree(work) == expected


def test_runner_with_the_shipped_configuration_and_its_formatter(tmp_path: Path) -> None:
    """From the repository root `.libcst.codemod.yaml` finds `fsdp_unpatch.codemods`; its no-op formatter changes nothing."""
    expected = fixed_by_the_cli(tmp_path)
    work = tmp_path / "work"
    shutil.copytree(LEGACY, work)
    result = codemod("unpatch.Unpatch", str(work), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert tree(work) == expected


def test_single_file_run_needs_the_installer_named(tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(LEGACY, work)
    original = (work / API_PATCHES).read_bytes()
    # Alone, the file does not show that the installer is removed elsewhere: nothing changes.
    result = codemod(
        "-x", "fsdp_unpatch.codemods.unpatch.Unpatch", "--no-format", str(work / API_PATCHES), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert (work / API_PATCHES).read_bytes() == original
    installer = "legacy_npu.distributed.fsdp._add_fsdp_patch._apply_fsdp_patch"
    result = codemod(
        "-x",
        "fsdp_unpatch.codemods.remove_installer_calls.RemoveInstallerCalls",
        "--no-format",
        "--installer",
        installer,
        str(work / API_PATCHES),
        cwd=work,
    )
    assert result.returncode == 0, result.stderr
    expected = fixed_by_the_cli(tmp_path)
    assert (work / API_PATCHES).read_bytes() == expected[str(API_PATCHES)]
    assert filecmp.cmp(work / "train.py", LEGACY / "train.py", shallow=False)


DOWNSTREAM = ROOT / "tests" / "fixtures" / "downstream"


def test_unpatch_on_the_downstream_fixture_equals_fix_references_included(tmp_path: Path) -> None:
    """`Unpatch` reads its codes from the registry (every safe fix): the FSU301 rewrite of
    `trainer/npu_compat.py` is one, which a hand-written code list once left out."""
    reference = tmp_path / "reference"
    shutil.copytree(DOWNSTREAM, reference)
    assert cli("fix", ".", cwd=reference).returncode in (0, 1)
    expected = tree(reference)
    compat = Path("trainer") / "npu_compat.py"
    assert expected[str(compat)] != (DOWNSTREAM / compat).read_bytes(), "fix rewrites the references"
    work = tmp_path / "work"
    shutil.copytree(DOWNSTREAM, work)
    result = codemod("-x", "fsdp_unpatch.codemods.unpatch.Unpatch", "--no-format", str(work), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert tree(work) == expected


def test_collapse_codemod_applies_its_unsafe_fix_as_fix_unsafe_fixes_select(tmp_path: Path) -> None:
    """FSU005's fix is unsafe: the codemod that exists only to apply it does, as
    `fix --unsafe-fixes --select FSU005` does (it used to keep only safe fixes, and changed nothing)."""
    source = ROOT / "tests" / "fixtures" / "fix" / "foreach_copy_variants.in.py"
    reference = tmp_path / "reference"
    reference.mkdir()
    shutil.copy(source, reference / "copies.py")
    assert cli("fix", "--unsafe-fixes", "--select", "FSU005", ".", cwd=reference).returncode in (0, 1)
    expected = tree(reference)
    assert expected["copies.py"] != source.read_bytes()
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(source, work / "copies.py")
    collapse = "fsdp_unpatch.codemods.collapse_foreach_copy.CollapseSameDeviceForeachCopy"
    result = codemod("-x", collapse, "--no-format", str(work), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert tree(work) == expected
