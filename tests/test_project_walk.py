"""One project walk per run, one stat per file (issue 23): FSU306, the held-back verdict's key and the import net
of a `check` share the walk of `project/identity.py`, and the walk asks the system about each file once.
The walk is the run's: a second run in the same process (the language server) walks again."""

from __future__ import annotations

import os
import shutil
import sys
from collections import Counter
from pathlib import Path

from fsdp_unpatch import api
from fsdp_unpatch.files import walk
from fsdp_unpatch.project import identity
from fsdp_unpatch.project.identity import project_files

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
IDENTITY = os.path.normcase(identity.__file__)
WALK = os.path.normcase(walk.__file__)


def _tree(root: Path) -> list[str]:
    """A package with a sub-package, a plain folder (namespace package) and a module at the top."""
    for name in ("pkg/__init__.py", "pkg/mod.py", "pkg/sub/__init__.py", "pkg/sub/deep.py", "tools/run.py", "top.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("X = 1\n")
    return sorted(str(p) for p in root.rglob("*.py"))


def _walks_of(root: str, monkeypatch) -> list[str]:
    """Records each listing of `root` made for the project model (the walk that `identity.py` drives, not
    discovery's)."""
    listed: list[str] = []
    real = os.scandir

    def counted(path=".", *args):
        walker, driver = sys._getframe(1), sys._getframe(2)  # the walk, and the loop that resumes it
        by_identity = os.path.normcase(walker.f_code.co_filename) == WALK and (
            os.path.normcase(driver.f_code.co_filename) == IDENTITY
        )
        if by_identity and os.path.abspath(path) == root:
            listed.append(path)
        return real(path, *args)

    monkeypatch.setattr(os, "scandir", counted)
    return listed


def test_a_check_with_a_safe_fix_walks_the_project_once(tmp_path: Path, monkeypatch) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    listed = _walks_of(str(project), monkeypatch)
    findings = api.check_paths([str(project)], use_cache=True, jobs=1)
    # the safe fix makes the run ask for the held-back verdict (its cache key searches the project too)
    assert any(f.fix is not None and f.fix.applicability == "safe" for f in findings)
    assert len(listed) == 1, listed


def test_the_walk_takes_one_stat_per_file_and_none_for_paths_it_reached(tmp_path: Path, monkeypatch) -> None:
    paths = _tree(tmp_path)
    asked: Counter = Counter()
    for name in ("stat", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(
            os, name, lambda path, *a, _real=real, **k: asked.update([os.fspath(path)]) or _real(path, *a, **k)
        )
    project = project_files([str(tmp_path)], paths)  # the run's own paths, as FSU306 passes them
    monkeypatch.undo()
    assert sorted(p for entry in project.files.values() for p in dict.fromkeys(entry.paths)) == paths
    files = {p: n for p, n in asked.items() if p.endswith(".py")}
    assert files == dict.fromkeys(paths, 1), asked
    inside = [p for p in asked if p.startswith(str(tmp_path) + os.sep) and not p.endswith(".py")]
    assert inside == [], asked  # nothing asked of the folders below the root but their listings
    assert project.modules >= {"pkg", "pkg.mod", "pkg.sub.deep", "run", "tools.run", "top"}


def test_inside_one_walk_the_same_roots_are_walked_once_and_the_walk_is_not_changed(tmp_path: Path) -> None:
    paths = _tree(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}_outside.py"
    outside.write_text("Y = 2\n")
    with identity.one_walk():
        first = project_files([str(tmp_path)], paths)
        again = project_files([str(tmp_path)], paths)
        wider = project_files([str(tmp_path)], [*paths, str(outside)])
        last = project_files([str(tmp_path)])
    assert again is first and last is first  # nothing new: the run's walk itself
    assert wider is not first and os.path.normpath(str(outside)) in wider.keys
    assert os.path.normpath(str(outside)) not in first.keys  # the shared walk kept as it was
    assert project_files([str(tmp_path)]) is not project_files([str(tmp_path)])  # outside a run: a walk a call


def test_a_second_run_in_one_process_sees_a_module_added_between_them(tmp_path: Path) -> None:
    """The walk ends with its run: a long-lived process (the language server) never keeps a stale one."""
    (tmp_path / "pyproject.toml").write_text("")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "user.py").write_text("from pkg.helpers import _apply_fsdp_patch\n\nprint(_apply_fsdp_patch)\n")

    def broken() -> list[str]:
        return [f.message for f in api.check_paths([str(tmp_path)], select="FSU306", jobs=1)]

    assert broken() == []  # `pkg.helpers` is no module of the project: nothing to check against
    (package / "helpers.py").write_text("kept = 1\n")
    messages = broken()
    assert len(messages) == 1 and "`_apply_fsdp_patch` is imported from `pkg.helpers`" in messages[0], messages


def test_each_folder_is_climbed_once_and_names_its_files_as_module_names_does(tmp_path: Path, monkeypatch) -> None:
    names = [
        "ns/inner/pkg/__init__.py",
        "ns/inner/pkg/a.py",
        "ns/inner/pkg/b.py",
        "ns/inner/pkg/sub/__init__.py",
        "ns/inner/pkg/sub/c.py",
        "ns/inner/loose.py",
        "my-tools/ns2/t.py",
        "my-tools/ns2/u.py",
        "top.py",
        "not_a_module.txt.py",
    ]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    climbed: Counter = Counter()
    real = identity._folder_names
    monkeypatch.setattr(identity, "_folder_names", lambda folder, *a: climbed.update([folder]) or real(folder, *a))
    project = project_files([str(tmp_path)])
    monkeypatch.undo()
    top = os.path.abspath(str(tmp_path))
    for entry in project.files.values():
        path = entry.paths[0]
        assert entry.modules == identity.module_names(path, top), path
    assert climbed and max(climbed.values()) == 1, climbed  # once per folder, not once per file
    assert {"pkg.a", "inner.pkg.a", "ns.inner.pkg.a", "pkg.sub.c", "ns2.t", "top"} <= project.modules


def _files(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("X = 1\n")


def test_a_folder_without_init_inside_a_package_is_a_namespace_portion_of_it(tmp_path: Path) -> None:
    """`pkg/sub/leaf/` has no `__init__.py`: Python imports `leaf/job.py` as `pkg.sub.leaf.job`, so its
    `from ...config import x` means `pkg.config` (issue 32: the walk used to take `leaf/` for a root)."""
    root = tmp_path / "repo"
    _files(root, ("pyproject.toml", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/leaf/job.py", "tools/run.py"))
    job = str(root / "pkg/sub/leaf/job.py")
    assert identity.module_name(job) == ("pkg.sub.leaf.job", False)
    assert identity.module_names(job, str(root))[0] == ("pkg.sub.leaf.job", False)
    walked = project_files([str(root)])
    assert ("pkg.sub.leaf.job", False) in walked.files[identity.identity(job)].modules
    assert ("job", False) not in walked.files[identity.identity(job)].modules
    assert identity.top_package(job) == str(root / "pkg")
    # A plain folder with no package above it is still where its names start (a script folder).
    assert identity.module_name(str(root / "tools/run.py")) == ("run", False)
    assert identity.top_package(str(root / "tools/run.py")) is None


def test_module_names_never_climb_out_of_a_project_into_a_package_around_it(tmp_path: Path) -> None:
    """A project kept inside another tree's package (a vendored copy, a test fixture) names its modules from
    its own root, the folder with `pyproject.toml`."""
    _files(tmp_path, ("outer/__init__.py", "outer/vendored/pyproject.toml", "outer/vendored/pkg/__init__.py"))
    _files(tmp_path, ("outer/vendored/pkg/mod.py",))
    assert identity.module_name(str(tmp_path / "outer/vendored/pkg/mod.py")) == ("pkg.mod", False)


def test_a_linked_file_is_named_by_its_target_when_asked_for_its_real_name(tmp_path: Path) -> None:
    _files(tmp_path, ("pkg/__init__.py", "pkg/real.py"))
    (tmp_path / "alias.py").symlink_to(tmp_path / "pkg/real.py")
    assert identity.module_name(tmp_path / "alias.py") == ("alias", False)
    assert identity.module_name(tmp_path / "alias.py", real=True) == ("pkg.real", False)


def _names_of(project, path: Path) -> list[str]:
    entry = project.files.get(identity.identity(str(path)))
    return [] if entry is None else [name for name, _ in entry.modules]


def test_a_copy_of_the_projects_package_outside_its_import_roots_is_no_source_of_its_modules(tmp_path: Path) -> None:
    """Issue 32, item 1: `build/lib/pkg/` (what `python setup.py build` leaves) is not on `sys.path` when the
    project runs; its files keep only the names that start in a root (`build.lib.pkg.mod`), so `pkg.mod` has
    one source. A plain module there keeps its name (a script folder, pytest's rootdir insertion), and so does a
    package that is no copy of the project's own; a copy that keeps no name is no module of the project."""
    root = tmp_path / "repo"
    copies = ("build/lib/pkg/__init__.py", "build/lib/pkg/mod.py", "build-out/pkg/__init__.py", "build-out/pkg/mod.py")
    _files(root, ("setup.py", "pkg/__init__.py", "pkg/mod.py", "tool.py", "build/lib/tool.py", *copies))
    _files(root, ("build/lib/other/__init__.py",))
    walked = project_files([str(root)])
    assert _names_of(walked, root / "pkg/mod.py") == ["pkg.mod"]
    assert _names_of(walked, root / "build/lib/pkg/mod.py") == ["lib.pkg.mod", "build.lib.pkg.mod"]
    assert _names_of(walked, root / "build/lib/pkg/__init__.py") == ["lib.pkg", "build.lib.pkg"]
    assert _names_of(walked, root / "build-out/pkg/mod.py") == []  # `build-out` spells no name: none is left
    assert identity.identity(str(root / "build-out/pkg/mod.py")) not in walked.files
    assert _names_of(walked, root / "build/lib/tool.py") == ["tool", "lib.tool", "build.lib.tool"]
    assert _names_of(walked, root / "build/lib/other/__init__.py") == ["other", "lib.other", "build.lib.other"]
    assert "pkg.mod" in walked.modules and "pkg" in walked.modules
    # a run's own path outside the walk is judged as it is added
    outside = tmp_path / "elsewhere/pkg/mod.py"
    _files(tmp_path, ("elsewhere/pkg/__init__.py", "elsewhere/pkg/mod.py"))
    skipped = root / "node_modules/pkg/mod.py"  # inside the walked folder, in one the walk does not enter
    _files(root, ("node_modules/pkg/__init__.py", "node_modules/pkg/mod.py"))
    wider = walked.with_extra([str(outside), str(skipped)], [str(root)])
    assert _names_of(wider, outside) == ["pkg.mod"]  # in no walked folder: nothing says it is not imported
    assert _names_of(wider, skipped) == ["node_modules.pkg.mod"]


def test_the_import_roots_a_project_declares_decide_which_copy_is_the_package(tmp_path: Path) -> None:
    """`package-dir = {"" = "lib"}`: `lib/pkg` is the package, `build/lib/pkg` a copy, though both folders are
    called `lib`; a project kept inside the walk (its own `pyproject.toml`) has roots of its own."""
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.setuptools]\npackage-dir = {"" = "lib"}\n')
    (root / "sub/setup.cfg").write_text("[options.packages.find]\nwhere = code\n")
    _files(root, ("lib/pkg/__init__.py", "lib/pkg/mod.py", "build/lib/pkg/__init__.py", "build/lib/pkg/mod.py"))
    _files(
        root,
        (
            "sub/code/pkg/__init__.py",
            "sub/code/pkg/mod.py",
            "sub/build/lib/pkg/__init__.py",
            "sub/build/lib/pkg/mod.py",
        ),
    )
    walked = project_files([str(root)])
    assert _names_of(walked, root / "lib/pkg/mod.py") == ["pkg.mod", "lib.pkg.mod"]
    assert _names_of(walked, root / "build/lib/pkg/mod.py") == ["build.lib.pkg.mod"]
    assert _names_of(walked, root / "sub/code/pkg/mod.py") == ["pkg.mod", "code.pkg.mod", "sub.code.pkg.mod"]
    assert _names_of(walked, root / "sub/build/lib/pkg/mod.py") == ["build.lib.pkg.mod", "sub.build.lib.pkg.mod"]
