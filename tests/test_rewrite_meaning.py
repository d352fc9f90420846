"""Rewrites keep the remaining code's meaning (issue 34, item 2): after `fix`, the rule cases of each shape
import and behave in a fresh interpreter with the installed torch, as they did (or should have) before.

- a `del` of a removed name is deleted, and FSDP2's own method is still there (FSU301);
- an import whose module kept code reaches by attribute access stays loaded (FSU002, `fixes/loads.py`), and
  `PACKAGE_LOADS` says no more than the installed torch loads;
- an installer named in `__all__` goes with its entries: `from module import *` works (FSU003);
- a dynamic export on the way to a removed name holds the fix back: the importer still works (FSU903).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fsdp_unpatch.api import fix_paths
from fsdp_unpatch.fixes.loads import PACKAGE_LOADS, loaded_by
from tests.test_rule_cases import prepare

pytest.importorskip("torch")


def _run(root: Path, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def _fixed(code: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work, _ = prepare(code, case, tmp_path)
    monkeypatch.chdir(tmp_path)
    fix_paths([case], unsafe_fixes=True)
    return work


def test_package_loads_are_what_the_installed_torch_loads() -> None:
    for package, modules in PACKAGE_LOADS.items():
        done = _run(
            Path.cwd(),
            f"""
            import sys
            import {package}
            missing = [m for m in {sorted(modules)!r} if m not in sys.modules]
            assert missing == [], missing
            """,
        )
        assert done.returncode == 0, done.stderr
    assert "torch.distributed.fsdp._fully_shard._fsdp_param" in loaded_by("torch.distributed.fsdp")


def test_a_deleted_del_leaves_fsdp2s_method_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = _fixed("FSU301", "del_of_a_removed_name", tmp_path, monkeypatch)
    lines = (work / "trainer" / "compat.py").read_text(encoding="utf-8").splitlines()
    assert [line.strip() for line in lines if line.strip().startswith("del ")] == ["del other"]
    done = _run(
        work,
        """
        from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
        import trainer.compat as compat
        assert compat.drop() is FSDPParamGroup.finalize_backward
        assert callable(FSDPParamGroup.finalize_backward)
        """,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "case, call",
    [
        (
            "replacement_beside_code_that_reaches_its_modules_by_attribute",
            "from types import SimpleNamespace\n"
            "from torch.distributed.fsdp._fully_shard._fsdp_param import ShardedState as S\n"
            "assert npu_adapter.is_sharded(SimpleNamespace(sharded_state=S.SHARDED))",
        ),
        ("replacement_beside_code_that_reaches_its_modules_through_a_package_alias", "assert npu_adapter.states()"),
        ("replacement_whose_imports_go_when_a_kept_import_loads_their_modules", "assert npu_adapter.shard"),
    ],
)
def test_kept_code_still_reaches_the_modules_the_dropped_imports_loaded(
    case: str, call: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _fixed("FSU002", case, tmp_path, monkeypatch)
    # nothing else imports FSDP2 first: the module itself must load what it reaches
    done = _run(work, "import sys\nimport npu_adapter\n" + call + "\n")
    assert done.returncode == 0, done.stderr
    if case.startswith("replacement_whose"):  # the control: nothing was kept
        text = (work / "npu_adapter.py").read_text(encoding="utf-8")
        assert "_fsdp_param" not in text.split('"""')[-1].split("def shard")[0]


def test_an_installer_named_in_dunder_all_goes_with_its_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _fixed("FSU003", "installer_named_in_dunder_all", tmp_path, monkeypatch)
    done = _run(work, "from npu_adapter import *\nimport train\nassert 'apply_npu_collectives_patch' not in dir()\n")
    assert done.returncode == 0, done.stderr
    again = fix_paths(["installer_named_in_dunder_all"], unsafe_fixes=True)  # one fix reached the end
    assert [f for f in again.remaining if f.fix is not None] == []


@pytest.mark.parametrize(
    "case, importer",
    [
        ("dynamic_export_by_a_package_getattr", "pkg.train"),
        ("dynamic_export_by_sys_modules", "pkg.train"),
        ("dynamic_export_by_globals_update", "pkg.train"),
    ],
)
def test_a_dynamic_export_holds_the_fix_back_and_the_importer_still_works(
    case: str, importer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _fixed("FSU903", case, tmp_path, monkeypatch)
    assert "apply_npu_collectives_patch" in (work / "pkg" / "npu_adapter.py").read_text(encoding="utf-8")
    done = _run(work, f"import {importer}\n")
    assert done.returncode == 0, done.stderr
