"""Edges of the proof and of deletion, each first found wrong by a hostile run on mutated real code.

- A global the copy uses that the module binds again after importing it (`def cast`, `dist = ...`) is the
  module's own object when the function runs: no proof.
- A replacement bound twice in its scope: which one is installed depends on when the installer runs.
- An installer or replacement that code the fix leaves still names (a call whose result is used, a
  registry) stays.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import check_tree, fix_tree
from tests.upstream import expand

PATCH = """\
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _patched_finalize_backward npu-stream


def _apply_fsdp_patch():
    FSDPParamGroup.finalize_backward = _patched_finalize_backward
{tail}"""


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _package(root: Path, tail: str = "", folder: str = "vendor/fsdp", init: bool = True) -> Path:
    for part in (folder.split("/")[0], folder) if init else (folder.split("/")[0],):
        _write(root, f"{part}/__init__.py", "")
    return _write(root, f"{folder}/patch.py", expand(PATCH.format(tail=tail)))


def _codes(root: Path) -> set[str]:
    return {f.code for f in check_tree(root).findings}


def test_the_plain_patch_is_removed(tmp_path: Path) -> None:
    """The baseline the other cases change one thing of."""
    patch = _package(tmp_path)
    assert {"FSU001", "FSU002", "FSU003"} <= _codes(tmp_path)
    fix_tree(tmp_path)
    assert "_patched_finalize_backward" not in patch.read_text()


def test_an_import_the_module_binds_again_is_not_upstream_s(tmp_path: Path) -> None:
    _package(tmp_path, tail="\n\ndist = torch.npu\n")
    codes = _codes(tmp_path)
    assert "FSU002" not in codes and "FSU001" not in codes and "FSU101" in codes


def test_a_helper_defined_after_the_import_is_the_module_s_own(tmp_path: Path) -> None:
    _package(tmp_path, tail="\n\ndef torch_shim():\n    pass\n\n\ntorch = torch_shim\n")
    assert "FSU002" not in _codes(tmp_path)


def test_a_replacement_bound_twice_is_not_proven(tmp_path: Path) -> None:
    patch = _package(tmp_path, tail="\n\ndef _patched_finalize_backward(self):\n    torch.npu.synchronize()\n")
    before = patch.read_bytes()
    findings = check_tree(tmp_path).findings
    assert not [f for f in findings if f.category == "remove"]
    assert any("bound more than once" in f.message for f in findings if f.code == "FSU101")
    fix_tree(tmp_path)
    assert patch.read_bytes() == before


def test_an_installer_a_registry_names_stays(tmp_path: Path) -> None:
    patch = _package(tmp_path, tail='\n\nPATCHERS = {"fsdp": _apply_fsdp_patch}\n')
    fix_tree(tmp_path)
    text = patch.read_text()
    assert "def _apply_fsdp_patch" in text and "PATCHERS" in text
    assert "_patched_finalize_backward" not in text  # what is proven still goes
    compile(text, str(patch), "exec")


def test_an_installer_whose_result_is_used_elsewhere_stays_with_that_call(tmp_path: Path) -> None:
    patch = _package(tmp_path)
    caller = _write(
        tmp_path, "vendor/api.py", "from vendor.fsdp.patch import _apply_fsdp_patch\n\nRESULT = _apply_fsdp_patch()\n"
    )
    fix_tree(tmp_path)
    assert "def _apply_fsdp_patch" in patch.read_text()
    assert caller.read_text() == "from vendor.fsdp.patch import _apply_fsdp_patch\n\nRESULT = _apply_fsdp_patch()\n"


def test_a_plain_call_elsewhere_goes_with_the_installer(tmp_path: Path) -> None:
    patch = _package(tmp_path)
    caller = _write(
        tmp_path, "vendor/api.py", "from vendor.fsdp.patch import _apply_fsdp_patch\n\n_apply_fsdp_patch()\n"
    )
    fix_tree(tmp_path)
    assert "_apply_fsdp_patch" not in patch.read_text()
    assert "_apply_fsdp_patch" not in caller.read_text()


def test_a_namespace_portion_is_one_module_for_its_importers(tmp_path: Path) -> None:
    """A folder without `__init__.py` inside a package (a namespace portion): the run and the caller both name
    the module `vendor.fsdp.patch` (`project/identity.py`), so the caller's uses migrate with the definitions
    instead of being left naming what is gone (before one model of module names, the run named it `patch`)."""
    patch = _package(tmp_path, init=False)
    caller = _write(
        tmp_path,
        "vendor/api.py",
        "from vendor.fsdp.patch import _apply_fsdp_patch, _patched_finalize_backward\n\n"
        "_apply_fsdp_patch()\n\n\ndef finalize(group):\n    return _patched_finalize_backward(group)\n",
    )
    fix_tree(tmp_path)
    text, used = patch.read_text(), caller.read_text()
    assert "_patched_finalize_backward" not in text + used and "_apply_fsdp_patch" not in text + used
    assert "return FSDPParamGroup.finalize_backward(group)" in used  # the native method the copy matched
    compile(text, str(patch), "exec")
    compile(used, str(caller), "exec")
