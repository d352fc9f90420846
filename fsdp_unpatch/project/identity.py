"""One identity per file: every Python file of a project, each reached once under its real identity, with
every module name it is imported under (README, Safety: "No fix breaks an import").

A file can be reached under several paths: hard links, symbolic links to the file or to a folder above it,
and two copies of one package (two files, one module name). Discovery checks such a file once, under its first
name; the import net needs all of its names, since an importer may use any of them.

A name counts only where Python could import it: a copy of the project's own package under a folder that is no
import root of the project (`build/lib/`, left by `python setup.py build` or `pip wheel`) is no second source of
its modules (`import_roots.py` says which folders are roots: the walked folders, each project folder, and what
its packaging files declare, else its `src/`).
"""

from __future__ import annotations

import os
import re
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence

from fsdp_unpatch.files.regular import FileStat, StatLike
from fsdp_unpatch.files.walk import walk_folders
from fsdp_unpatch.project.import_roots import import_roots

# Files that make a folder the start of a project's module names (a project root, not a namespace portion).
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# Folders that hold no code of the project's own (tools, environments, caches).
_SKIPPED = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages", "venv", "env"})


# pytest's default file names for test modules.
TEST_MODULE = re.compile(r"^(test_.*|.*_test)\.py$")


def is_test_module(path: str | os.PathLike[str]) -> bool:
    """Whether the file is a test module, by its name (the test rules and the audit ask)."""
    return bool(TEST_MODULE.match(os.path.basename(path)))


def module_name(path: str | os.PathLike[str], *, real: bool = False) -> tuple[str, bool]:
    """The dotted module name `path` is imported under, as Python's import system resolves it: the regular
    packages (folders with `__init__.py`) around it, and the folders without one between them, which are
    namespace portions of the package above (`pkg/sub/leaf/mod.py` with no `leaf/__init__.py` is
    `pkg.sub.leaf.mod`). `real`: name the file its links lead to; else a link's own folder counts."""
    path = os.fspath(path)
    return _climb(os.path.realpath(path) if real else path)[0]


def top_package(path: str | os.PathLike[str]) -> Optional[str]:
    """The outermost regular package folder holding the module at `path` (its real path); None outside one."""
    (name, is_package), folder = _climb(os.path.realpath(os.fspath(path)))
    parts = name.split(".")[: None if is_package else -1]
    return os.path.join(folder, parts[0]) if parts and parts[0] else None


def module_names(
    path: str, top: Optional[str] = None, packages: Optional[dict[str, bool]] = None
) -> list[tuple[str, bool]]:
    """Every dotted name `path` may be imported under: `module_name`'s first, then one more for each folder
    between the outermost package and `top` (the project's folder, absolute; not included). Such folders have no
    `__init__.py` and are namespace packages (PEP 420): `ns/fsdp/patch.py` is `patch`, `fsdp.patch` and
    `ns.fsdp.patch`, whichever of those folders is on `sys.path`. `packages`: what is known of folders
    (whether each holds an `__init__.py`), shared by the files of one walk."""
    folder, file_name = os.path.split(os.path.abspath(path))
    return _names(_folder_names(folder, top, {} if packages is None else packages), file_name)


def _climb(path: str, packages: Optional[dict[str, bool]] = None) -> tuple[tuple[str, bool], str]:
    """(module name, is a package) of `path`, and the folder its name starts in (the one on `sys.path`)."""
    folder, file_name = os.path.split(os.path.abspath(path))
    parts, _ = _folder_names(folder, None, {} if packages is None else packages)
    for _ in parts:
        folder = os.path.dirname(folder)
    return _names((parts, ()), file_name)[0], folder


def _names(climbed: tuple[tuple[str, ...], tuple[str, ...]], file_name: str) -> list[tuple[str, bool]]:
    """The names of a file called `file_name` in a folder that `_folder_names` climbed: the first, then the
    longer ones its namespace packages give it."""
    packages, spaces = climbed
    is_package = file_name == "__init__.py"
    stem = [] if is_package else [file_name[:-3] if file_name.endswith(".py") else file_name]
    name = ".".join([*packages, *stem]) or file_name
    names = [(name, is_package)]
    for package in spaces:
        name = f"{package}.{name}" if name else package
        names.append((name, is_package))
    return names


def _folder_names(folder: str, top: Optional[str], known: dict[str, bool]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The one climb of module names, shared by every file of `folder` (absolute): the package parts of its
    name, outermost first (the regular packages around it and the namespace portions between them), then the
    namespace packages above the outermost regular package up to `top`, innermost first. The climb never goes
    above `top` but through regular packages, and stops at a folder no dotted name can spell."""
    climbed: list[str] = []  # folder names from `folder` up, innermost first
    run: list[str] = []  # the folders without `__init__.py` climbed since the last package (absolute)
    outermost = 0  # how many of `climbed` make the package part: up to the outermost regular package
    while True:
        above, name = os.path.split(folder)
        inside = top is None or (folder != top and folder.startswith(top + os.sep))
        if not name or (run and not inside):
            break  # above `top`, only packages around the ones climbed count
        if _is_package(folder, known):
            if any(_is_project_root(f, known) for f in run):
                break  # the folders between are another project's root, inside this package's tree
            climbed.append(name)
            outermost, run = len(climbed), []
        elif name.isidentifier() and inside:
            climbed.append(name)
            run.append(folder)
        else:
            break
        folder = above
    parts = tuple(reversed(climbed[:outermost]))
    spaces = tuple(climbed[outermost:]) if top is not None else ()
    return parts, spaces


def _is_package(folder: str, known: dict[str, bool]) -> bool:
    found = known.get(folder)
    if found is None:
        found = known[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
    return found


def _is_project_root(folder: str, known: dict[str, bool]) -> bool:
    """Whether `folder` declares a project of its own (the folder its imports start in, on `sys.path`): a climb
    of module names never passes it into a package of some other tree around it."""
    marker = folder + "\0root"  # kept beside the package facts of the same walk
    found = known.get(marker)
    if found is None:
        found = known[marker] = any(os.path.exists(os.path.join(folder, m)) for m in _PROJECT_MARKERS)
    return found


def _starts(folder: str, climbed: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[Optional[str], ...]:
    """The folder each name `_names` gives a file of `folder` starts in: above its packages for the first
    (None for a module in no package), one more folder up for each longer name."""
    parts, spaces = climbed
    start = folder
    for _ in parts:
        start = os.path.dirname(start)
    starts: list[Optional[str]] = [start if parts else None]
    for _ in spaces:
        start = os.path.dirname(start)
        starts.append(start)
    return tuple(starts)


def identity(path: str) -> object:
    """What every name of one file shares: device and inode (hard links, symbolic links); the real path
    when the file cannot be looked at."""
    return _identity(path, _stat(path))


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except OSError:
        return None


def _identity(path: str, info: Optional[os.stat_result]) -> object:
    return os.path.realpath(path) if info is None else (info.st_dev, info.st_ino)


@dataclass
class ProjectFile:
    key: object
    paths: list[str] = field(default_factory=list)  # every name it is reached under, in walk order
    modules: list[tuple[str, bool]] = field(default_factory=list)  # (module name, is a package) per name
    # the folder each name starts in, which must be on `sys.path` for it to import; None for a top-level
    # module outside any package (a script folder, pytest's rootdir insertion: never taken for a copy)
    starts: list[Optional[str]] = field(default_factory=list)
    # `paths[i]` is the path `modules[i]` is imported from: a path is repeated for each longer name that
    # namespace packages give it (`module_names`)


@dataclass
class Project:
    files: dict[object, ProjectFile] = field(default_factory=dict)  # by identity, in walk order
    modules: set[str] = field(default_factory=set)  # every module name (a submodule is no missing name)
    # folder -> whether it holds an `__init__.py`: asked once per folder of the walk, not once per file in it
    packages: dict[str, bool] = field(default_factory=dict)
    # path (normalised) -> the stat the walk took of it (None: none could be taken): one stat per path, which
    # gives its identity and what the broken-import facts record (`stat_of`)
    stats: dict[str, Optional[FileStat]] = field(default_factory=dict)
    keys: dict[str, object] = field(default_factory=dict)  # path (normalised) -> identity
    links: set[str] = field(default_factory=set)  # the paths of `keys` that are symbolic links
    # When the walk began (`time.time_ns`), before any of its stats: a file last changed well before it stands
    # for its content by its stat (the "racy" rule of `run/cache.py`)
    since: int = field(default_factory=time.time_ns)
    # (folder, top) -> what `_folder_names` climbed: the same for every file of the folder
    climbed: dict[tuple[str, Optional[str]], tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    # (folder, top) -> the folder each name of its files starts in (`ProjectFile.starts`)
    started: dict[tuple[str, Optional[str]], tuple[Optional[str], ...]] = field(default_factory=dict)
    tops: list[str] = field(default_factory=list)  # the walked folders (absolute)
    roots: set[str] = field(default_factory=set)  # the import roots found in them (`import_roots.py`)
    # The first parts of the names that start in a root (the project's own packages), once the walk is over
    # (`settle`); None before: a name of one of them starting in no root is a copy's, and is dropped
    own: Optional[frozenset[str]] = None

    def add(
        self, path: str, top: Optional[str] = None, absolute: Optional[str] = None, link: Optional[bool] = None
    ) -> ProjectFile:
        """`top`: the project folder `path` was found in (absolute), the end of its namespace packages;
        `absolute`: the path made absolute, `link`: whether it is a symbolic link, when the walk's listing
        knows them (no current-folder lookup, no `lstat`)."""
        path = os.path.normpath(path)
        key = self.keys.get(path)
        if key is not None:
            return self.files[key]
        info = _stat(path)
        self.stats[path] = None if info is None else FileStat.of(info)
        key = self.keys[path] = _identity(path, info)
        if os.path.islink(path) if link is None else link:
            self.links.add(path)
        entry = self.files.get(key)
        if entry is None:
            entry = self.files[key] = ProjectFile(key)
        names, starts = self._module_names(absolute or os.path.abspath(path), top)
        for named, start in zip(names, starts):
            if self.own is not None and self._copy(named[0], start):
                continue  # after the walk: a copy's names are dropped as they come
            entry.paths.append(path)
            entry.modules.append(named)
            entry.starts.append(start)
            self.modules.add(named[0])
        return entry

    def _module_names(
        self, absolute: str, top: Optional[str]
    ) -> tuple[list[tuple[str, bool]], tuple[Optional[str], ...]]:
        """`module_names(absolute, top)`, climbing each folder once for all its files, and the folder each name
        starts in (`ProjectFile.starts`)."""
        folder, file_name = os.path.split(absolute)
        key = (folder, top)
        climbed = self.climbed.get(key)
        if climbed is None:
            climbed = self.climbed[key] = _folder_names(folder, top, self.packages)
            self.started[key] = _starts(folder, climbed)
        return _names(climbed, file_name), self.started[key]

    def _rooted(self, start: str) -> bool:
        """Whether a name starting in `start` can be imported: it is an import root, or lies in no walked
        folder (the climb went above one through packages)."""
        return start in self.roots or not any(start.startswith(top + os.sep) for top in self.tops)

    def _copy(self, name: str, start: Optional[str]) -> bool:
        """Whether the name is a copy's: one of the project's own packages, starting in no import root."""
        assert self.own is not None
        return start is not None and name.partition(".")[0] in self.own and not self._rooted(start)

    def settle(self) -> None:
        """Once the walk is over: drop the names of copies of the project's own packages (`_copy`); a file
        left with no name is no module of the project. A file added later is judged as it is added."""
        starts = {start for found in self.started.values() for start in found if start is not None}
        rooted = {start: self._rooted(start) for start in starts}  # asked once per folder, not once per file
        own = self.own = frozenset(
            name.partition(".")[0]
            for entry in self.files.values()
            for (name, _), start in zip(entry.modules, entry.starts)
            if start is not None and rooted[start]
        )
        if all(rooted.values()):
            return  # every name starts in a root: no copy (most trees)
        dropped = False
        for key, entry in list(self.files.items()):
            kept = [
                i
                for i, start in enumerate(entry.starts)
                if start is None or rooted[start] or entry.modules[i][0].partition(".")[0] not in own
            ]
            if len(kept) == len(entry.starts):
                continue
            dropped = True
            if not kept:
                del self.files[key]
                continue
            entry.paths = [entry.paths[i] for i in kept]
            entry.modules = [entry.modules[i] for i in kept]
            entry.starts = [entry.starts[i] for i in kept]
        if dropped:
            self.modules = {name for entry in self.files.values() for name, _ in entry.modules}

    def key_of(self, path: str) -> object:
        """`identity(path)`, from the walk's stat when it reached that path."""
        key = self.keys.get(os.path.normpath(path))
        return identity(path) if key is None else key

    def is_link(self, path: str) -> bool:
        """`os.path.islink(path)`, from the walk's listing when it listed that path."""
        normal = os.path.normpath(path)
        return normal in self.links if normal in self.keys else os.path.islink(path)

    def stat_of(self, path: str) -> Optional[StatLike]:
        """The walk's stat of `path` (taken before anything of the run read it), else a fresh one."""
        normal = os.path.normpath(path)
        return self.stats[normal] if normal in self.stats else _stat(path)

    def with_extra(self, paths: Iterable[str], tops: Sequence[str]) -> Project:
        """This project with `paths` added; itself when the walk reached them all (a walk shared by a run is
        never changed: the paths it lacks go into a copy)."""
        extra = [p for p in paths if os.path.normpath(p) not in self.keys]
        if not extra:
            return self
        copy = Project(
            dict(self.files), set(self.modules), self.packages, dict(self.stats), dict(self.keys), set(self.links)
        )
        copy.since, copy.climbed, copy.started = self.since, self.climbed, self.started  # shared: none changes
        copy.tops, copy.roots, copy.own = self.tops, self.roots, self.own
        for path in extra:
            key = identity(path)
            if key in copy.files and copy.files[key] is self.files.get(key):
                old = copy.files[key]
                copy.files[key] = ProjectFile(key, list(old.paths), list(old.modules), list(old.starts))
            copy.add(path, _top_of(path, tops))
        return copy


# Walks shared by the run that opened `one_walk` (None: every `project_files` call walks).
_WALKS: ContextVar[Optional[dict[tuple[str, tuple[str, ...]], Project]]] = ContextVar(
    "fsdp_unpatch_project_walks", default=None
)


@contextmanager
def one_walk() -> Iterator[None]:
    """Within it, `project_files` walks each set of roots once: FSU306, the held-back verdict's key and the
    import net of one run share a walk. For a run that writes nothing (a written file gets a new identity);
    the walk ends with the run, so a long-lived process (the language server) never keeps a stale one."""
    token = _WALKS.set({})
    try:
        yield
    finally:
        _WALKS.reset(token)


def project_files(roots: Iterable[str], extra: Iterable[str] = ()) -> Project:
    """The Python files below `roots`, and the `extra` paths. A link to a folder inside the roots is followed
    (its files get a second module name); one that leads outside them, or to a folder above it, is not.
    Inside `one_walk`, the roots are walked once per run; do not change the result."""
    roots = list(roots)
    walks = _WALKS.get()
    memo_key = (os.getcwd(), tuple(roots))
    walked = walks.get(memo_key) if walks is not None else None
    if walked is None:
        walked = _walk(roots)
        if walks is not None:
            walks[memo_key] = walked
    tops = [top for top in (os.path.abspath(r) for r in roots) if os.path.isdir(top)]
    return walked.with_extra(extra, tops)


def _walk(roots: list[str]) -> Project:
    project = Project()
    homes = [os.path.realpath(r) for r in roots]
    for root in roots:
        if not os.path.isdir(root):
            if os.path.lexists(root):
                project.add(root)
            continue
        top = os.path.abspath(root)
        project.tops.append(top)
        project.roots.add(top)
        for folder in walk_folders(root, ordered=True, skip=_SKIPPED, follow=homes):
            if folder.below and _virtualenv(folder.path, folder.entries):
                folder.subfolders.clear()
                continue
            absolute = os.path.join(top, folder.below) if folder.below else top
            if any(e.name in _PROJECT_MARKERS for e in folder.entries):
                project.roots.update(import_roots(absolute, [e.name for e in folder.entries]))
            files = [e for e in folder.files if e.name.endswith(".py") and not e.name.startswith(".")]
            # what `_is_package` would find, known from the listing
            project.packages.setdefault(absolute, any(e.name == "__init__.py" and _is_file(e) for e in files))
            for entry in files:
                project.add(entry.path, top, os.path.join(absolute, entry.name), _is_link(entry))
    project.settle()
    return project


def _virtualenv(folder: str, entries: list[os.DirEntry]) -> bool:
    """A folder holding `pyvenv.cfg` (a virtual environment): skipped, as its parent's listing once asked."""
    return any(e.name == "pyvenv.cfg" for e in entries) and os.path.exists(os.path.join(folder, "pyvenv.cfg"))


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _top_of(path: str, tops: Iterable[str]) -> Optional[str]:
    """The folder of `tops` (absolute) that holds `path`."""
    where = os.path.abspath(path)
    return next((top for top in tops if where.startswith(top + os.sep)), None)


def find_root(path: str) -> Optional[str]:
    """The project root above `path` (`pyproject.toml` or `.git`), as `config/project.py` finds it."""
    from fsdp_unpatch.config.project import Project as Found

    root = Found.of([path]).root
    return None if root is None else str(root)


def shown_path(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def roots_of(options, paths: Sequence[str], buffers: Sequence[str]) -> Optional[list[str]]:
    """Where the project's files are: the project root of a partial run; the project above an editor's
    buffer (None: none found); else what the run covers (the run's files)."""
    if options.project_root is not None:
        return [options.project_root]
    if buffers:
        root = find_root(buffers[0])
        return None if root is None else [root]
    return list(options.covered) or list(paths)
