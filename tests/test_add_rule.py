"""The scaffold (`scripts/add_rule.py`): adding a rule is one module, its cases and the generated README row.

Run in a copy of the parts of the repository it reads and writes, never in this tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NEW = ["FSU199", "patched-hook", "--category", "review", "--fix", "none", "--phase", "file"]


def copy_of_repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache")
    for part in ("fsdp_unpatch", "scripts", "tests/rules"):
        shutil.copytree(REPO / part, copy / part, ignore=ignore)
    for name in ("README.md", "pyproject.toml", "docs/rules.md"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, copy / name)
    return copy


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=copy, capture_output=True, text=True)


@pytest.fixture
def scaffolded(tmp_path: Path) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    done = run(copy, "scripts/add_rule.py", *NEW, "--summary", "An FSDP2 hook replaced by hand")
    assert done.returncode == 0, done.stderr
    return copy, before, tree(copy)


def test_the_scaffold_touches_only_the_rule_module_its_cases_and_the_readme(scaffolded) -> None:
    copy, before, after = scaffolded
    changed = {name for name in after.keys() | before.keys() if before.get(name) != after.get(name)}
    assert changed == {
        "fsdp_unpatch/rules/patched_hook.py",
        "tests/rules/FSU199/fires/example.py",
        "tests/rules/FSU199/ok_fires/example.py",
        "README.md",
        "docs/rules.md",  # the rule's section of the reference, which its findings' `url` links
    }
    readme_before = before["README.md"].decode().splitlines()
    readme_after = after["README.md"].decode().splitlines()
    added = [line for line in readme_after if line not in readme_before]
    assert len(readme_after) == len(readme_before) + 1 and added[0].startswith("| FSU199 | patched-hook | review |")


def test_the_registry_lists_the_scaffolded_rule(scaffolded) -> None:
    copy, _, _ = scaffolded
    probe = (
        "from fsdp_unpatch.rules.registry import rule\n"
        "r = rule('FSU199')\n"
        "print(r.name, r.category, r.fix, r.phase, r.module, r.check is not None)\n"
    )
    done = run(copy, "-c", probe)
    assert done.stdout.split() == ["patched-hook", "review", "none", "file", "patched_hook", "True"], done.stderr
    assert run(copy, "scripts/gen_readme_rules.py", "--check").returncode == 0


def test_the_scaffolded_module_passes_the_linters(scaffolded) -> None:
    copy, _, _ = scaffolded
    module = "fsdp_unpatch/rules/patched_hook.py"
    for args in (("check", module), ("format", "--check", module)):
        done = run(copy, "-m", "ruff", *args)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_scaffold_refuses_a_taken_code_or_name_and_writes_nothing(tmp_path: Path) -> None:
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    taken_code = run(copy, "scripts/add_rule.py", "FSU001", "patched-hook", *NEW[2:])
    taken_name = run(copy, "scripts/add_rule.py", "FSU199", "collective-override", *NEW[2:])
    assert taken_code.returncode == 2 and "FSU001 is taken" in taken_code.stderr
    assert taken_name.returncode == 2 and "collective-override is taken" in taken_name.stderr
    assert tree(copy) == before
