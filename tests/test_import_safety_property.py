"""Property (issue 25): whatever importers a tree has, `fix` leaves it importing (docs/safety.md).

A sweep over the bundled example, the fixture trees and two real torch-npu releases (2.8.0, 2.9.1). Each tree
first gets a dry run (`fix` without writing) to learn which modules a fix changes; then importers of those
modules are added, one kind per case (or all at once for the releases):

- a second name: a hard link or a symbolic link to the changed module, and a file importing its names
  through that name;
- a re-export: a module of the same package importing every name the changed module binds by import;
- an importer outside the run: `fix` is given only the package, the importer lives at the project root;
- an unreadable importer: a file the run cannot open (refused as the kernel would for mode 000).

After `fix` the tree must still import: no `from M import n` of a tree module is left unbound that was bound
before (`tests/import_check.py`, written apart from the tool), and every module that a fresh interpreter
could import before (a fresh interpreter, torch installed and loaded once for all: tests/import_probe.py; torch-npu
not installed) still imports.
"""

from __future__ import annotations

import ast
import errno
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from fsdp_unpatch.analysis.plan import Options
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.files import writing
from fsdp_unpatch.model import RunOptions, RunResult
from fsdp_unpatch.run.batch import run
from tests.import_check import unbound_imports
from tests.import_probe import ImportProbe
from tests.upstream import expand

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
KINDS = ("plain", "hard link", "symbolic link", "re-export", "outside the run", "unreadable")
RELEASES = ("2.8.0", "2.9.1")


def _copy_tree(name: str, into: Path) -> Path:
    """The tree as a project (a `pyproject.toml` at its root), placeholders expanded."""
    tree = into / "tree"
    if name == "example":
        shutil.copytree(ROOT / "examples" / "legacy_project", tree, ignore=shutil.ignore_patterns("__pycache__"))
    elif name == "fix":  # the before/after fixtures, as modules of one package
        (tree / "fixpkg").mkdir(parents=True)
        (tree / "fixpkg" / "__init__.py").write_text("")
        for path in sorted((FIXTURES / "fix").glob("*.in.py")):
            module = re.sub(r"\W", "_", path.name[: -len(".in.py")])
            (tree / "fixpkg" / f"{module}.py").write_text(expand(path.read_text()))
    elif name in RELEASES:
        from tests.realworld.packages import Unavailable, sources

        try:
            shutil.copytree(sources(name) / "torch_npu", tree / "torch_npu")
        except Unavailable as error:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"CI must fetch the real releases: {error}")
            pytest.skip(str(error))
    else:
        shutil.copytree(FIXTURES / name, tree, ignore=shutil.ignore_patterns("__pycache__"))
    for path in tree.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "# @upstream " in text:
            path.write_text(expand(text), encoding="utf-8")
    (tree / "pyproject.toml").write_text('[project]\nname = "tree"\n')
    return tree


def _fix(tree: Path, paths: list[Path], write: bool = True) -> RunResult:
    options = RunOptions(
        analysis=Options(target_torch=Version.parse("2.13")),
        fix=True,
        write=write,
        project_root=str(tree) if paths != [tree] else None,
        covered=tuple(str(p) for p in paths),
    )
    return run(discover([str(p) for p in paths]), load_catalog(), options)


def _contents(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}


def _module(tree: Path, path: Path) -> str:
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").exists() and folder != tree:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def _names(path: Path) -> tuple[list[str], list[str]]:
    """The module's top-level names: those it defines, those it binds by import."""
    tree = ast.parse(path.read_bytes())
    defined, imported = [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.append(node.name)
        elif isinstance(node, ast.Assign):
            defined += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    return sorted(set(defined)), sorted(set(imported))


def _importer(at: Path, module: str, names: list[str]) -> None:
    at.write_text("".join(f"from {module} import {name}\n" for name in names) or "pass\n")


def _mutate(tree: Path, changed: list[Path], kinds: tuple[str, ...]) -> tuple[list[Path], set[str]]:
    """Add the importers of `kinds`; the paths to run `fix` on, and the files the run must not read."""
    paths, unreadable = [tree], set()
    for n, path in enumerate(changed):
        module = _module(tree, path)
        defined, imported = _names(path)
        if "hard link" in kinds or "symbolic link" in kinds:
            alias = path.with_name(f"{path.stem}_second_name_{n}.py")
            if "hard link" in kinds and (n % 2 == 0 or "symbolic link" not in kinds):
                os.link(path, alias)
            else:
                alias.symlink_to(path.name)
            _importer(tree / f"probe_second_name_{n}.py", _module(tree, alias), defined)
        if "re-export" in kinds and imported and path.name != "__init__.py":
            _importer(path.with_name(f"probe_reexport_{n}.py"), module, imported)
        if "outside the run" in kinds and "." in module:
            _importer(tree / f"probe_outside_{n}.py", module, defined)
            paths = [tree / module.split(".")[0]]
        if "unreadable" in kinds:
            unreadable.add(str(tree / f"probe_unreadable_{n}.py"))
            _importer(tree / f"probe_unreadable_{n}.py", module, defined)
    return paths, unreadable


def _importable(tree: Path, probe: ImportProbe) -> set[str]:
    """The tree's modules a fresh interpreter imports, with the tree first on sys.path (torch loaded)."""
    modules = sorted({_module(tree, p) for p in tree.rglob("*.py") if "probe_unreadable" not in p.name})
    return probe.importable(tree, modules)


@pytest.fixture(scope="module")
def probe():
    server = ImportProbe()
    yield server
    server.close()


def _refusing(monkeypatch, paths: set[str]) -> None:
    if not paths:
        return
    real_open, real_builtin = os.open, open

    def refusing(name, *args, **kwargs):
        if isinstance(name, (str, os.PathLike)) and os.fspath(name) in paths:
            raise PermissionError(errno.EACCES, "Permission denied", name)
        return real_open(name, *args, **kwargs)

    def refusing_builtin(name, *args, **kwargs):
        if isinstance(name, (str, os.PathLike)) and os.fspath(name) in paths:
            raise PermissionError(errno.EACCES, "Permission denied", name)
        return real_builtin(name, *args, **kwargs)

    monkeypatch.setattr(writing.os, "open", refusing)
    monkeypatch.setattr("builtins.open", refusing_builtin)


@dataclass
class PlainFix:
    """One `fix` of a fresh copy of a tree with no importer added (the plain case): `tree` is that copy as the
    fix left it, `changed` the files (relative to it) the fix changed."""

    tree: Path
    before: dict[str, bytes]  # the copy's files before the fix
    changed: list[str]
    result: RunResult


# tree name -> its plain fix, made once: every kind asks it which modules `fix` changes (what a dry run of
# the same copy would say, without an analysis of its own), and the plain case is that fix.
_PLAIN: dict[str, PlainFix] = {}


def _plain_fix(tree_name: str, tmp_path_factory: pytest.TempPathFactory) -> PlainFix:
    if tree_name not in _PLAIN:
        tree = _copy_tree(tree_name, tmp_path_factory.mktemp(f"plain-{tree_name}"))
        before = _contents(tree)
        result = _fix(tree, [tree])
        fixed = [Path(os.path.abspath(f.display)) for f in result.files if f.fixed is not None]
        _PLAIN[tree_name] = PlainFix(tree, before, [p.relative_to(tree).as_posix() for p in fixed], result)
    return _PLAIN[tree_name]


def _check(
    tree_name: str,
    kinds: tuple[str, ...],
    tmp_path: Path,
    monkeypatch,
    probe: Optional[ImportProbe],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """`probe`: also compare what a fresh interpreter imports (None: only the static check). A copy to which
    the kind added nothing is the plain fix's input byte for byte: it is compared with that fix's copy
    (`_plain_fix`), not fixed again."""
    tree = _copy_tree(tree_name, tmp_path)
    plain = _plain_fix(tree_name, tmp_path_factory)
    changed = [tree / name for name in plain.changed]
    assert changed or tree_name in ("audit", "verify"), "the tree has nothing to fix: the sweep tests nothing"
    paths, unreadable = _mutate(tree, changed, kinds)
    unbound_before = set(unbound_imports(tree))
    importable_before = _importable(tree, probe) if probe else set()
    if paths == [tree] and not unreadable and _contents(tree) == plain.before:
        # the plain case, or a kind that found nothing to add (a tree with nothing to fix): the same run
        tree, result = plain.tree, plain.result
    else:
        _refusing(monkeypatch, unreadable)
        result = _fix(tree, paths)
        monkeypatch.undo()
    assert set(unbound_imports(tree)) - unbound_before == set()
    if probe:
        assert importable_before - _importable(tree, probe) == set()
    if kinds == ("plain",):  # the net refuses no correct migration
        assert not [f for f in result.findings if "which this fix removes" in f.message]


TREES = ("example", "downstream", "fix", "audit", "verify")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("tree_name", TREES)
def test_fix_leaves_every_tree_importing(
    tree_name: str, kind: str, tmp_path: Path, monkeypatch, probe, tmp_path_factory
) -> None:
    probed = probe if tree_name in ("example", "downstream") else None
    _check(tree_name, (kind,), tmp_path, monkeypatch, probed, tmp_path_factory)


@pytest.mark.parametrize("version", RELEASES)
def test_fix_leaves_a_real_release_importing(version: str, tmp_path: Path, monkeypatch, tmp_path_factory) -> None:
    _check(version, ("plain",), tmp_path / "plain", monkeypatch, None, tmp_path_factory)
    _check(version, KINDS[1:], tmp_path / "mutated", monkeypatch, None, tmp_path_factory)
