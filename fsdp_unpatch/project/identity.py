"""One identity per file: every Python file of a project, each reached once under its real identity, with
every module name it is imported under (README, Safety: "No fix breaks an import").

A file can be reached under several paths: hard links, symbolic links to the file or to a folder above it,
and two copies of one package (two files, one module name). Discovery checks such a file once, under its first
name; the import net needs all of its names, since an importer may use any of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

# Folders that hold no code of the project's own (tools, environments, caches).
_SKIPPED = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages", "venv", "env"})


def module_name(path: str) -> tuple[str, bool]:
    """The dotted module name `path` is imported under, from the packages (folders with `__init__.py`)
    around it as the path spells them: a link's own folder counts, not its target's."""
    return _climb(path)[0]


def module_names(
    path: str, top: Optional[str] = None, packages: Optional[dict[str, bool]] = None
) -> list[tuple[str, bool]]:
    """Every dotted name `path` may be imported under: `module_name`'s first, then one more for each folder
    between the outermost package and `top` (the project's folder, absolute; not included). Such folders have no
    `__init__.py` and are namespace packages (PEP 420): `ns/fsdp/patch.py` is `patch`, `fsdp.patch` and
    `ns.fsdp.patch`, whichever of those folders is on `sys.path`. `packages`: what is known of folders
    (whether each holds an `__init__.py`), shared by the files of one walk."""
    (name, is_package), folder = _climb(path, packages)
    names = [(name, is_package)]
    if top is None:
        return names
    while folder != top and folder.startswith(top + os.sep):
        folder, package = os.path.split(folder)
        if not package.isidentifier():
            break  # `my-tools/x.py` is imported under no dotted name through that folder
        name = f"{package}.{name}" if name else package
        names.append((name, is_package))
    return names


def _climb(path: str, packages: Optional[dict[str, bool]] = None) -> tuple[tuple[str, bool], str]:
    """(module name, is a package) from the `__init__.py` packages around `path`, and the first folder above
    them that is none."""
    folder, name = os.path.split(os.path.abspath(path))
    is_package = name == "__init__.py"
    parts = [] if is_package else [name[:-3] if name.endswith(".py") else name]
    known = {} if packages is None else packages
    while _is_package(folder, known):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
        if not package:
            break
    return (".".join(parts) or name, is_package), folder


def _is_package(folder: str, known: dict[str, bool]) -> bool:
    found = known.get(folder)
    if found is None:
        found = known[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
    return found


def identity(path: str) -> object:
    """What every name of one file shares: device and inode (hard links, symbolic links); the real path
    when the file cannot be looked at."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (info.st_dev, info.st_ino)


@dataclass
class ProjectFile:
    key: object
    paths: list[str] = field(default_factory=list)  # every name it is reached under, in walk order
    modules: list[tuple[str, bool]] = field(default_factory=list)  # (module name, is a package) per name
    # `paths[i]` is the path `modules[i]` is imported from: a path is repeated for each longer name that
    # namespace packages give it (`module_names`)


@dataclass
class Project:
    files: dict[object, ProjectFile] = field(default_factory=dict)  # by identity, in walk order
    modules: set[str] = field(default_factory=set)  # every module name (a submodule is no missing name)
    # folder -> whether it holds an `__init__.py`: asked once per folder of the walk, not once per file in it
    packages: dict[str, bool] = field(default_factory=dict)

    def add(self, path: str, top: Optional[str] = None) -> ProjectFile:
        """`top`: the project folder `path` was found in (absolute), the end of its namespace packages."""
        key = identity(path)
        entry = self.files.setdefault(key, ProjectFile(key))
        path = os.path.normpath(path)
        if path not in entry.paths:
            for name, is_package in module_names(path, top, self.packages):
                entry.paths.append(path)
                entry.modules.append((name, is_package))
                self.modules.add(name)
        return entry


def project_files(roots: Iterable[str], extra: Iterable[str] = ()) -> Project:
    """The Python files below `roots`, and the `extra` paths. A link to a folder inside the roots is followed
    (its files get a second module name); one that leads outside them, or to a folder above it, is not."""
    project = Project()
    roots = list(roots)
    homes = [os.path.realpath(r) for r in roots]
    for root in roots:
        if not os.path.isdir(root):
            if os.path.lexists(root):
                project.add(root)
            continue
        top = os.path.abspath(root)
        stack: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
        while stack:
            folder, chain = stack.pop()
            chain = chain | {os.path.realpath(folder)}  # the real folders above: a link back to one loops
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue
            subfolders = []
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if name in _SKIPPED or os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                        continue
                    if entry.is_symlink() and not _inside(entry.path, homes, chain):
                        continue
                    subfolders.append((entry.path, chain))
                elif name.endswith(".py"):
                    project.add(entry.path, top)
            stack.extend(reversed(subfolders))
    tops = [top for top in (os.path.abspath(r) for r in roots) if os.path.isdir(top)]
    for path in extra:
        project.add(path, _top_of(path, tops))
    return project


def _top_of(path: str, tops: Iterable[str]) -> Optional[str]:
    """The folder of `tops` (absolute) that holds `path`."""
    where = os.path.abspath(path)
    return next((top for top in tops if where.startswith(top + os.sep)), None)


def _inside(link: str, homes: list[str], chain: frozenset[str]) -> bool:
    target = os.path.realpath(link)
    return target not in chain and any(target == h or target.startswith(h + os.sep) for h in homes)


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
