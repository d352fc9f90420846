"""Static only: `check` and `fix` never import or execute the code they scan, and read configuration only from TOML.

The scanned project is booby-trapped: modules that write a marker file and exit when imported, files
named like the tool's own dependencies, Python's start-up hooks, and configuration in non-TOML files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import check_tree, fix_tree
from tests.patch_texts import removable

TRAP = """\
import os
import sys

# Import-time side effects: none of this may ever run while the tool checks or fixes the file.
with open(os.path.join({folder!r}, "MARKER-{name}"), "w") as handle:
    handle.write("imported")
sys.exit(3)
"""

# Files whose execution a careless tool could trigger: importing the scanned modules, Python's start-up
# hooks (sitecustomize), test and build entry points, and names that shadow the tool's own imports.
TRAPPED_NAMES = ["__init__", "__main__", "conftest", "setup", "noxfile", "torch"]
# At the project's top, where `python -m` would put them on the import path (the console script does not).
SHADOWING_NAMES = [
    "sitecustomize",
    "usercustomize",
    "click",
    "libcst",
    "tomllib",
    "tomli",
    "rich",
    "pathspec",
    "fsdp_unpatch",
    "conftest",
    "setup",
]

NON_TOML_CONFIG = {
    "setup.cfg": "[fsdp-unpatch]\nselect = FSU9\n[tool:fsdp-unpatch]\nselect = FSU9\n",
    "tox.ini": "[fsdp-unpatch]\nselect = FSU9\n",
    ".flake8": "[flake8]\nselect = FSU9\n",
    "fsdp_unpatch_config.py": "raise SystemExit('configuration code must not run')\n",
    ".fsdp-unpatch.cfg": "select = FSU9\n",
}


def _trapped_project(root: Path) -> tuple[Path, Path]:
    package = root / "trapped"
    package.mkdir()
    for name in TRAPPED_NAMES:
        (package / f"{name}.py").write_text(TRAP.format(folder=str(root), name=f"trapped.{name}"))
    for name in SHADOWING_NAMES:
        (root / f"{name}.py").write_text(TRAP.format(folder=str(root), name=name))
    patch = package / "patched_module.py"
    patch.write_text(TRAP.format(folder=str(root), name="patched_module") + "\n\n" + removable())
    for name, text in NON_TOML_CONFIG.items():
        (root / name).write_text(text)
    return package, patch


def _markers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("MARKER-"))


def _console_script() -> str:
    script = Path(sys.executable).with_name("fsdp-unpatch")
    found = str(script) if script.exists() else shutil.which("fsdp-unpatch")
    if found is None:
        pytest.skip("the fsdp-unpatch console script is not installed")
    return found


def test_command_line_runs_execute_nothing_they_scan(tmp_path: Path) -> None:
    package, patch = _trapped_project(tmp_path)
    # The console script, from inside the project: the current folder is not on its import path.
    command = [_console_script()]
    checked = subprocess.run(
        [*command, "check", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr  # findings, not an exit(3) from a trap
    assert "trapped/patched_module.py" in checked.stdout and "FSU001" in checked.stdout  # not FSU9-only
    fixed = subprocess.run(
        [*command, "fix", "--no-cache", "."], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert patch.read_text() == TRAP.format(folder=str(tmp_path), name="patched_module")  # the patch is gone
    assert _markers(tmp_path) == []


def test_in_process_runs_import_nothing_they_scan(tmp_path: Path) -> None:
    package, patch = _trapped_project(tmp_path)
    modules_before = set(sys.modules)
    checked = check_tree(tmp_path)
    assert any(f.code == "FSU001" for f in checked.findings)
    fixed = fix_tree(tmp_path)
    assert fixed.changed
    assert _markers(tmp_path) == []
    loaded = {
        name
        for name in set(sys.modules) - modules_before
        if name.startswith("trapped") or name in ("conftest", "sitecustomize", "patched_module")
    }
    assert loaded == set()
    assert all(
        not str(getattr(module, "__file__", "") or "").startswith(str(tmp_path))
        for module in list(sys.modules.values())
    )
