"""The user catalog's files: torch releases learnt with `fsdp-unpatch catalog add`, one JSON file a release.

The folder: `--catalog-dir` (`upgrade`, `catalog`), else `$FSDP_UNPATCH_CATALOG_DIR`, else the user data folder
of the platformdirs convention (`$XDG_DATA_HOME/fsdp-unpatch/catalog`, `~/Library/Application
Support/fsdp-unpatch/catalog`, `%LOCALAPPDATA%\\fsdp-unpatch\\catalog`).

Light on purpose: a `check` lists the folder (one directory read, nothing when it does not exist) to know the
learnt releases' versions from their file names; a file is read only when its data is used (a proof, a release
verdict, `upgrade`), once per file version.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import Optional

ENVIRONMENT = "FSDP_UNPATCH_CATALOG_DIR"
FILE = re.compile(r"^torch-(\d+\.\d+(?:\.\d+)?[\w.+-]*)\.json$")

# The folder a run was asked to use (`upgrade --catalog-dir`): set by the run before it starts, inherited by
# the worker processes it forks. None: the environment, else the user data folder.
_configured: Optional[str] = None


def configure(folder: Optional[str]) -> None:
    """Use `folder` as the user catalog for the rest of the process (None: the environment's, else the default)."""
    global _configured
    _configured = folder


def catalog_folder(configured: Optional[str] = None) -> Path:
    configured = configured or _configured
    if configured:
        return Path(configured).expanduser()
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT]).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "fsdp-unpatch" / "catalog"


def version_key(version: str) -> tuple[int, ...]:
    """ "2.14.1+cpu" -> (2, 14, 1): the order of releases."""
    out = []
    for part in version.split("+")[0].split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def files(folder: Optional[Path] = None) -> list[tuple[str, Path]]:
    """(version, file) of each release file of the user catalog, oldest release first; [] without a folder."""
    folder = catalog_folder() if folder is None else folder
    try:
        names = os.listdir(folder)
    except OSError:  # no folder (the usual case), or one that cannot be read: nothing learnt
        return []
    found = [(match.group(1), folder / name) for name in names if (match := FILE.match(name))]
    return sorted(found, key=lambda item: (version_key(item[0]), item[0]))


def state(folder: Optional[Path] = None) -> tuple[tuple[str, int, int], ...]:
    """(file, size, modification time) of each release file: what a result computed from them depends on."""
    out = []
    for _, path in files(folder):
        try:
            info = path.stat()
        except OSError:
            continue
        out.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(out)


def read(path: Path) -> object:
    """The JSON of a release file (OSError, UnicodeDecodeError or ValueError when it cannot be read)."""
    info = path.stat()
    return _read(str(path), info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _read(path: str, size: int, mtime: int) -> object:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
