"""The one walk of folders (issue 32): every module that looks below a folder goes through `walk_folders`.

Its callers want different things of a tree (the files a run checks, the files a project's imports can reach,
the tool's own build), so what they skip and whether a link to a folder is followed are options. How a folder
is listed, what counts as one, how a folder that cannot be read is reported and how a followed link is kept
from looping is decided here once. Nothing here knows what a module name or a run is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Collection, Iterator, Optional, Sequence


@dataclass
class Folder:
    """One folder of the walk, once listed (what `os.walk` gives, with the directory entries)."""

    path: str  # as the walk spells it: the root as given, then the names below it (`os.DirEntry.path`)
    below: str  # the names below the root, joined ("" for the root)
    real: str  # its real path: the root's resolved once, then a name a folder (a followed link's target resolved)
    entries: list[os.DirEntry]  # its whole listing, sorted by name in an `ordered` walk
    files: list[os.DirEntry]  # the entries that are no folder (a broken link, an entry whose type cannot be read)
    # The folders entered after this one, in this order; remove one to keep the walk out of it (as from
    # `os.walk`'s folder names). Hidden and skipped names, and links not followed, are left out already.
    subfolders: list[os.DirEntry]


def walk_folders(
    root: str,
    *,
    ordered: bool = False,
    hidden: bool = True,
    skip: Collection[str] = (),
    follow: Optional[Sequence[str]] = None,
    prune: Collection[str] = (),
    onerror: Optional[Callable[[OSError], None]] = None,
) -> Iterator[Folder]:
    """The folders below `root` and itself, each as it is listed, a folder before those inside it.

    `ordered`: listings sorted by name, folders visited in that order (else in whatever order is cheapest).
    `hidden`: skip folders whose name starts with a dot; `skip`: folder names never entered. `follow`: real
    folders (absolute) a link to a folder is followed into, unless it leads to a folder it is inside of (a
    loop); None: no link to a folder is followed. `prune`: real paths of folders not entered. `onerror`: told
    of each folder that cannot be listed (none is skipped silently unless it is left out)."""
    # (path, below the root, real path, the real paths of the folders above it: a link back to one loops)
    stack: list[tuple[str, str, str, frozenset[str]]] = [(root, "", os.path.realpath(root), frozenset())]
    while stack:
        path, below, real, chain = stack.pop()
        if follow is not None:
            chain = chain | {real}
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=_name) if ordered else list(listing)
        except OSError as error:
            if onerror is not None:
                onerror(error)
            continue
        files = []
        subfolders = []
        targets: dict[str, str] = {}  # a followed link -> its real path
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                files.append(entry)
                continue
            name = entry.name
            if (hidden and name.startswith(".")) or name in skip:
                continue
            if entry.is_symlink():
                target = None if follow is None else _target_inside(entry.path, follow, chain)
                if target is None:
                    continue
                targets[entry.path] = target
            subfolders.append(entry)
        folder = Folder(path, below, real, entries, files, subfolders)
        yield folder
        inner = []
        for entry in folder.subfolders:
            name = entry.name
            target = targets.get(entry.path) or os.path.join(real, name)
            if not (prune and target in prune):
                inner.append((entry.path, os.path.join(below, name) if below else name, target, chain))
        stack.extend(reversed(inner) if ordered else inner)


def _name(entry: os.DirEntry) -> str:
    return entry.name


def _target_inside(link: str, homes: Sequence[str], chain: frozenset[str]) -> Optional[str]:
    """The real path of the folder `link` leads to, when it lies in one of `homes` and is none of `chain`."""
    target = os.path.realpath(link)
    if target in chain or not any(target == home or target.startswith(home + os.sep) for home in homes):
        return None
    return target
