"""What a cache entry's key hashes besides the file itself (`cache.py`): the analysis data, the tool's own
build, the files outside a partial run, and the run's settings and options as canonical text."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import stat
import time
from pathlib import Path
from typing import Iterable, Optional

from fsdp_unpatch.files.walk import walk_folders

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the fsdp_unpatch package
DATA_DIR = PACKAGE_DIR / "data"


def catalog_digest(files: Iterable[Path] = ()) -> str:
    """Hash of the data the analysis reads (catalog, fingerprints): a changed catalog invalidates everything."""
    digest = hashlib.sha256()
    for path in sorted(files) or sorted(p for p in DATA_DIR.iterdir() if p.is_file()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def build_digest() -> str:
    """Hash of the installed tool itself: every file of the package and its codemods, code and data."""
    # `fsdp_unpatch.codemods` installs inside the package; in an editable install it stays in the
    # repository's `codemods/` folder. Found without importing it (that would import libcst).
    codemods = importlib.util.find_spec("fsdp_unpatch.codemods")
    roots = [PACKAGE_DIR]
    for location in (codemods.submodule_search_locations or []) if codemods else []:
        if PACKAGE_DIR not in Path(location).resolve().parents:
            roots.append(Path(location).resolve())
    return files_digest(roots)


# A file changed this shortly before the hash was taken is hashed by its bytes (`cache.RACY_NS`).
RACY_NS = 2_000_000_000


def files_digest(roots: Iterable[Path]) -> str:
    """Hash of every file below `roots` but compiled bytecode: its path below the root's parent, and its stat
    (size, times, inode, device) when it was last changed well before now, else its bytes. Any edit changes
    the stat (the change time cannot be set back), so two builds never share a hash; nor do two installs of
    one build, which only costs a cold cache."""
    digest = hashlib.sha256()
    trusted_before = time.time_ns() - RACY_NS
    for root in roots:
        if not root.is_dir():
            continue
        found = [
            entry.path
            for folder in walk_folders(str(root), hidden=False, skip=("__pycache__",))
            for entry in folder.files
            if not entry.name.endswith((".pyc", ".pyo"))
        ]
        for path in sorted(found):
            try:
                info = os.stat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if max(info.st_mtime_ns, info.st_ctime_ns) < trusted_before:
                content = f"{info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino} {info.st_dev}".encode()
            else:
                content = Path(path).read_bytes()
            digest.update(os.path.relpath(path, root.parent).encode() + b"\0" + content + b"\0")
    return digest.hexdigest()


def outside_digest(project_root: Optional[str], covered: Iterable[str]) -> str:
    """Paths, sizes, modification and change times and inodes of the project's files outside a partial run ("" for a
    whole run): no `os.utime` puts a change time back."""
    if project_root is None:
        return ""
    from fsdp_unpatch.config.discovery import outside_files

    digest = hashlib.sha256()
    for path in sorted(outside_files(project_root, covered)):
        try:
            info = os.stat(path)
        except OSError:
            continue  # unreadable: the run says so itself
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}\0".encode())
    return digest.hexdigest()


def describe(*values) -> str:
    """A canonical text for settings and options (sets sorted, callables left out): part of the cache key."""
    import dataclasses

    def plain(value):
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {
                f.name: plain(getattr(value, f.name))
                for f in dataclasses.fields(value)
                if not callable(getattr(value, f.name))
            }
        if isinstance(value, (set, frozenset)):
            return sorted((plain(v) for v in value), key=repr)
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return str(value)

    return json.dumps([plain(v) for v in values], sort_keys=True)
