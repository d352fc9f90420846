"""Real trees: `check` and `fix --diff` over every Python file of this environment's standard library and
site-packages (libcst, pytest, rich, click, torch, ...): no crash, no removal outside a real FSDP2 patch,
and no diff.

torch's own FSDP2 sources are in there: they define the targets, they do not patch them, so they may get
review findings (torch registers its own kernels) but never a removal. A removal is allowed only inside a
known patch package (the catalog's [patch_modules], e.g. torch_npu), should one be installed.

Slow (about 9 s on two cores, up to 25 s with a cold page cache): the prefilter drops all but about 14 of
the ~22,000 files, so the time goes to walking, reading and prefiltering. `-m "not slow"` skips it.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog


def _roots() -> list[str]:
    paths = sysconfig.get_paths()
    roots = []
    for key in ("stdlib", "purelib", "platlib"):
        path = os.path.realpath(paths[key])
        if os.path.isdir(path) and path not in roots:
            roots.append(path)
    return roots


def _command(*args: str) -> list[str]:
    # --no-respect-gitignore: an environment inside a git checkout (pyenv is one) must still be scanned;
    # --no-cache: nothing is written into the environment.
    return [
        sys.executable,
        "-m",
        "fsdp_unpatch",
        *args,
        "--isolated",
        "--no-cache",
        "--no-respect-gitignore",
        *_roots(),
    ]


def _in_patch_package(path: str) -> bool:
    packages = [name.rsplit(".", 1)[0].replace(".", os.sep) for name in load_catalog().patch_modules]
    return any(os.sep + package + os.sep in path for package in packages)


def _compiles(path: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(Path(path).read_bytes(), path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


@pytest.mark.slow
def test_installed_environment_check_and_fix_diff() -> None:
    started = time.perf_counter()
    checked = subprocess.run(_command("check", "--output-format", "json"), capture_output=True, text=True, timeout=900)
    check_seconds = time.perf_counter() - started
    assert checked.returncode in (0, 1, 2), checked.stderr
    assert "Traceback" not in checked.stderr
    findings = json.loads(checked.stdout)
    removals = [f for f in findings if f["category"] == "remove" and not _in_patch_package(f["path"])]
    assert removals == []
    errors = [f for f in findings if f["category"] == "error"]
    # An error is only ever a file that really is not Python (CPython refuses it too).
    assert [f for f in errors if f["code"] != "FSU901" or _compiles(f["path"])] == []
    assert checked.returncode == (2 if errors else 1 if any(f["category"] != "keep" for f in findings) else 0)

    started = time.perf_counter()
    diffed = subprocess.run(
        _command("fix", "--diff", "--output-format", "json"), capture_output=True, text=True, timeout=900
    )
    diff_seconds = time.perf_counter() - started
    assert "Traceback" not in diffed.stderr
    changed = [line[len("--- a/") :] for line in diffed.stdout.splitlines() if line.startswith("--- a/")]
    assert [path for path in changed if not _in_patch_package(path)] == []
    assert json.loads(diffed.stderr) == findings  # the same findings, none of them fixed
    print(f"\ncheck: {check_seconds:.1f} s, fix --diff: {diff_seconds:.1f} s, {len(findings)} findings")
