"""One `fix` performs the whole migration: a second `fix` changes nothing, and `check` after it has nothing to remove.

Over every fixture under tests/fixtures (each `fix/*.in.py` and `unchanged/*.py` alone, each tree as one project,
the fingerprint fragments as modules), both examples and real torch-npu releases; with safe fixes only and with
`--unsafe-fixes`. After a safe-only `fix`, no `remove` finding may still have a safe fix; after
`fix --unsafe-fixes`, none may have any fix. And a safe `fix` followed by `fix --unsafe-fixes` ends where one
`fix --unsafe-fixes` does (docs/migration.md, "What counts as removed").
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from fsdp_unpatch.api import fix_paths
from tests.upstream import expand, expanded_copy

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
# Trees that are one project each (the others are folders of single-file fixtures).
TREES = (
    "audit",
    "downstream",
    "downstream_migrated",
    "fixed_point",
    "verify/dropped_enhance",
    "verify/wrong_migration",
)
EXAMPLES = ("legacy_project", "migrated_project")
# Releases with the collectives patch (three shapes of it) and one the maintainers migrated by hand.
RELEASES = ("2.7.1.post11", "2.8.0", "2.10.0.post7", "2.11.0.post3")


def _single_files() -> list[str]:
    found = [f"fix/{p.name}" for p in sorted((FIXTURES / "fix").glob("*.in.py"))]
    found += [f"unchanged/{p.name}" for p in sorted((FIXTURES / "unchanged").glob("*.py"))]
    found += [f"fingerprint/{p.name}" for p in sorted((FIXTURES / "fingerprint").glob("*.py.txt"))]
    return found


def test_every_fixture_is_covered() -> None:
    """A new fixture folder is a new tree here, or a new kind of single-file fixture (`audit_expected` holds
    reports, no Python)."""
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "__pycache__"}
    folders |= {f"verify/{p.name}" for p in (FIXTURES / "verify").iterdir() if p.is_dir()}
    assert folders - {"fix", "unchanged", "fingerprint", "verify", "audit_expected"} == set(TREES)


def _project(kind: str, name: str, tmp_path: Path) -> Path:
    """A copy of the fixture, example or release to migrate, `# @upstream` lines expanded."""
    root = tmp_path / "project"
    if kind == "tree":
        return expanded_copy(FIXTURES / name, root)
    if kind == "example":
        return expanded_copy(ROOT / "examples" / name, root)
    if kind == "release":
        from tests.realworld.test_releases import _fetch

        shutil.copytree(_fetch(name) / "torch_npu", root / "torch_npu")
        return root
    source = FIXTURES / name
    root.mkdir(parents=True)
    module = source.name.replace(".in.py", ".py").replace(".py.txt", ".py")
    (root / module).write_text(expand(source.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def _contents(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".fsdp_unpatch_cache" not in p.parts
    }


def _write(root: Path, contents: dict[str, bytes]) -> Path:
    for name, data in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


# (kind, name, unsafe) -> the files after one `fix` of a fresh copy, kept by a passing
# test_one_fix_reaches_the_end for the test after it, which would otherwise run the same fixes again.
_FIXED_ONCE: dict[tuple[str, str, bool], dict[str, bytes]] = {}


def _fixed_once(kind: str, name: str, unsafe: bool, tmp_path: Path) -> Path:
    """A fresh copy of the case after one `fix` (or `fix --unsafe-fixes`)."""
    if (kind, name, unsafe) in _FIXED_ONCE:
        return _write(tmp_path / "project", _FIXED_ONCE[(kind, name, unsafe)])
    root = _project(kind, name, tmp_path)
    fix_paths([os.fspath(root)], unsafe_fixes=unsafe, target_torch="2.13")
    return root


def _fixed_point(root: Path, unsafe: bool) -> dict[str, bytes]:
    """Asserts the fixed point; the files after the first `fix`.

    What `check` would say of the fixed tree is read off the second `fix`: it fixed nothing and wrote
    nothing (asserted), so the findings it reports left are every finding of that tree, as a fresh `check`
    of it reports them (`fix_paths`' contract, which tests/test_api.py holds `check_paths` to). A `check` of
    its own would analyse the same files a third time."""
    # The project's own configuration (an example's pyproject.toml) applies; the target is torch 2.13.
    paths = [os.fspath(root)]
    fix_paths(paths, unsafe_fixes=unsafe, target_torch="2.13")
    once = _contents(root)
    second = fix_paths(paths, unsafe_fixes=unsafe, target_torch="2.13")
    twice = _contents(root)
    assert sorted(twice) == sorted(once), "a second fix deleted files"
    assert [p for p in once if once[p] != twice[p]] == [], "a second fix changed files"
    assert (second.fixed, second.changed) == ([], []), "a second fix still found something to fix"
    left = [
        f"{f.path}:{f.span.line}: {f.code} {f.message}"
        for f in second.remaining
        if f.category == "remove" and f.fix is not None and (unsafe or f.fix.applicability == "safe")
    ]
    assert not left, "check after fix still has something to remove:\n" + "\n".join(left)
    return once


CASES = (
    [pytest.param("file", n, id=n) for n in _single_files()]
    + [pytest.param("tree", n, id=n) for n in TREES]
    + [pytest.param("example", n, id=f"examples/{n}") for n in EXAMPLES]
    + [pytest.param("release", v, id=f"torch-npu-{v}", marks=pytest.mark.slow) for v in RELEASES]
)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize(("kind", "name"), CASES)
def test_one_fix_reaches_the_end(kind: str, name: str, unsafe: bool, tmp_path: Path) -> None:
    _FIXED_ONCE[(kind, name, unsafe)] = _fixed_point(_project(kind, name, tmp_path), unsafe)


@pytest.mark.parametrize(("kind", "name"), [c for c in CASES if c.values[0] != "release"])
def test_a_safe_fix_then_an_unsafe_one_ends_where_one_unsafe_fix_does(kind: str, name: str, tmp_path: Path) -> None:
    one = _fixed_once(kind, name, True, tmp_path / "one")
    two = _fixed_once(kind, name, False, tmp_path / "two")
    fix_paths([os.fspath(two)], unsafe_fixes=True, target_torch="2.13")
    assert _contents(two) == _contents(one)
