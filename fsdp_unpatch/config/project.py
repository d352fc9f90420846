"""The project a run belongs to: one answer for the cache, the configuration search and partial runs.

The project root is the nearest folder at or above the first path that holds `pyproject.toml` or `.git`.
Symbolic links are resolved first: a file is part of the project it really lies in, whichever link names it,
so a checkout reached through a link keeps one cache and one configuration.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence


def start_folder(paths: Sequence[str], cwd: Optional[str] = None) -> Path:
    """Where the search for a project (or a configuration) starts: the first path's folder, links resolved;
    the current folder for a run on standard input (`-`) or on nothing."""
    first = paths[0] if paths and paths[0] != "-" else (cwd or os.getcwd())
    start = Path(os.path.realpath(first))
    return start if start.is_dir() else start.parent


@dataclass(frozen=True)
class Project:
    root: Optional[Path]  # None: no `pyproject.toml` or `.git` above the paths
    cwd: Path  # where a run outside any project keeps its cache

    @classmethod
    def of(cls, paths: Sequence[str], cwd: Optional[str] = None) -> Project:
        folder = start_folder(paths, cwd)
        here = Path(cwd or os.getcwd())
        for candidate in (folder, *folder.parents):
            try:
                if (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
                    return cls(candidate, here)
            except OSError:  # a folder this user cannot enter holds no project of theirs
                continue
        return cls(None, here)

    @property
    def folder(self) -> Path:
        """The project root, else the current folder: where the cache lives."""
        return self.root if self.root is not None else self.cwd

    def partial_root(self, paths: Sequence[str]) -> Optional[str]:
        """The project root when `paths` cover only part of the project; None when they cover all of it or
        there is no project to protect."""
        if self.root is None or any(os.path.realpath(p) == str(self.root) for p in paths):
            return None
        return str(self.root)
