"""Which files a run looks at: walk the given paths for Python files, skipping what no one wants scanned."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

from fsdp_unpatch.files.walk import walk_folders

# Folders that hold no project source: version control, caches, virtual environments, build output.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        ".eggs",
        ".venv",
        "venv",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        ".fsdp_unpatch_cache",
        ".idea",
        ".vscode",
    }
)
PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Candidate:
    path: Path
    display: str
    explicit: bool  # named on the command line rather than found by walking
    data: Optional[bytes] = None  # the content, when it comes from standard input (an editor's buffer)
    leaves_roots: bool = False  # a symbolic link found by walking whose target lies outside every walked folder
    problem: Optional[str] = None  # a folder the walk could not read: reported as an error, never skipped silently


class MissingPath(Exception):
    pass


def _is_virtualenv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def _display(path: str) -> str:
    """The path as reports show it; bytes that are not UTF-8 (kept by Python as surrogates) as `\\xNN`."""
    path = path[2:] if path.startswith("./") else path
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        path = os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def _inside(path: str, folders: Iterable[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)


def force_excluded(raw: str) -> bool:
    """Whether walking would have skipped the explicitly named file `raw` (for `--force-exclude`).

    Only the folders between the current folder and the file count: pre-commit and editors name
    files relative to the project, and what lies above the project is not the project's business.
    """
    relative = os.path.relpath(os.path.abspath(raw))
    if relative.startswith(os.pardir):
        return False
    folders = Path(relative).parts[:-1]
    return any(
        part in SKIPPED_DIRS or part.startswith(".") or _is_virtualenv(os.path.join(*folders[: i + 1]))
        for i, part in enumerate(folders)
    )


def discover(
    paths: Iterable[str], force_exclude: bool = False, exclusion=None, *, prune: frozenset[str] = frozenset()
) -> Iterator[Candidate]:
    """Python files under `paths`, each once, in a stable (sorted) order.

    A path named explicitly is taken unless `force_exclude` and walking would have skipped it;
    folders are walked, skipping SKIPPED_DIRS, hidden folders and virtual environments. Raises
    MissingPath for a path that does not exist. `exclusion` (an `exclusion.Exclusion`) adds the
    configured exclude patterns and `.gitignore`, and replaces SKIPPED_DIRS when `exclude` is set. Folders
    whose real path is in `prune` are not walked.
    """
    seen: set[str] = set()
    paths = list(paths)
    # A symbolic link is read wherever it points, but written only when it points inside a walked folder.
    roots = [os.path.realpath(raw) for raw in paths if os.path.isdir(raw)]
    for raw in paths:
        if not os.path.lexists(raw):
            raise MissingPath(raw)
        if os.path.isdir(raw):
            unreadable: list[OSError] = []
            walked = _walk_root(raw)
            found = sorted(_walk(walked, exclusion, unreadable.append, prune), key=lambda item: item[0])
            for error in unreadable:
                folder = str(error.filename or raw)
                yield Candidate(
                    Path(folder),
                    _display(folder),
                    explicit=False,
                    problem=f"cannot read folder: {error.strerror or error}; the files in it were not checked",
                )
            for path, link, entry, real in found:
                # The walk follows no folder links, so only a file link needs resolving (realpath is slow).
                key = os.path.realpath(path) if link else real
                if key not in seen and not _same_file_seen(path, seen, entry):
                    seen.add(key)
                    leaves = link and not _inside(key, roots)
                    yield Candidate(Path(path), _display(path), explicit=False, leaves_roots=leaves)
        else:
            key = os.path.realpath(raw)
            if force_exclude and (exclusion.excluded_anywhere(raw) if exclusion is not None else force_excluded(raw)):
                continue
            if key not in seen and not _same_file_seen(raw, seen):
                seen.add(key)
                yield Candidate(Path(raw), _display(raw), explicit=True)


def _same_file_seen(path: str, seen: set, entry: Optional[os.DirEntry] = None) -> bool:
    """Whether `path` is a hard link to a file already taken (then it is checked and fixed once, under the
    first name: writing it twice would find it "changed on disk" the second time). Records it otherwise."""
    try:
        info = entry.stat() if entry is not None else os.stat(path)
    except OSError:
        return False  # reading it will say what is wrong
    if info.st_nlink < 2:
        return False
    identity = ("inode", info.st_dev, info.st_ino)
    if identity in seen:
        return True
    seen.add(identity)
    return False


def _walk_root(raw: str) -> str:
    """The folder as the walk spells it: without trailing separators (`src/` walks as `src`), as `os.walk` does."""
    return raw.rstrip(os.sep) or raw


def _walk(
    root: str, exclusion=None, onerror=None, prune: frozenset[str] = frozenset()
) -> Iterator[tuple[str, bool, os.DirEntry, str]]:
    """(path, is a symbolic link, its directory entry, its folder's real path joined with its name) of the
    Python files below `root`, following no folder link. Exclude patterns and `.gitignore` files are evaluated
    only in folders where some apply."""
    skipped = SKIPPED_DIRS if exclusion is None else exclusion.default_names
    for folder in walk_folders(root, skip=skipped, prune=prune, onerror=onerror):
        check = exclusion is not None and exclusion.applies_in(folder.path)
        folder.subfolders[:] = [
            entry
            for entry in folder.subfolders
            if not (_is_virtualenv(entry.path) or (check and exclusion.excluded(entry.path, True)))
        ]
        for entry in folder.files:
            if entry.name.endswith(PYTHON_SUFFIXES) and not (check and exclusion.excluded(entry.path, False)):
                yield entry.path, entry.is_symlink(), entry, os.path.join(folder.real, entry.name)


def outside_files(root: str, covered: Iterable[str]) -> Iterator[str]:
    """The Python files below `root` that are not below (or equal to) one of the `covered` paths.

    The covered folders are not walked at all (a run over most of a project pays no second walk of it), and
    a file's real path is its folder's (resolved once per folder) unless the file is a symbolic link."""
    covered = [os.path.realpath(path) for path in covered]
    folders: dict[str, str] = {}
    for candidate in discover([root], prune=frozenset(p for p in covered if os.path.isdir(p))):
        path = str(candidate.path)
        if os.path.islink(path):
            real = os.path.realpath(path)
        else:
            folder, name = os.path.split(path)
            if folder not in folders:
                folders[folder] = os.path.realpath(folder)
            real = os.path.join(folders[folder], name)
        if not any(real == path or real.startswith(path + os.sep) for path in covered):
            yield path
