"""The per-file result cache in `.fsdp_unpatch_cache/` at the project root (like ruff's `.ruff_cache/`).

An entry is one file's phase-1 outcome (`batch.Outcome`: its findings when analysed alone, plus the keys
that link it to other files; the run re-links every time, so cross-file results are never cached). Its key
hashes everything the outcome depends on:
- the file's bytes, the path it is reported under, and the module name its folders give it (relative
  imports resolve through it);
- the tool's version, and the bytes of the catalog and of the upstream fingerprints;
- the run's configuration: target torch, `keep`, select/ignore and every other setting, replacement
  regions or not.
Only `check` uses the cache; `fix` always analyses afresh. Entries are written atomically (temporary
file + rename); an entry that cannot be read or unpickled is a miss, never an error.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Optional

from fsdp_unpatch import __version__

CACHE_DIR = ".fsdp_unpatch_cache"
DATA_DIR = Path(__file__).parent / "data"
_GITIGNORE = "# Created by fsdp-unpatch automatically.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This is the fsdp-unpatch cache.\n"


def project_root(paths: Iterable[str], cwd: Optional[str] = None) -> Path:
    """The folder holding `pyproject.toml` or `.git` above the first path (else the current folder)."""
    from fsdp_unpatch.discovery import enclosing_project

    paths = list(paths)
    fallback = Path(cwd) if cwd else Path.cwd()
    return enclosing_project(paths[0] if paths else str(fallback)) or fallback


def catalog_digest(files: Iterable[Path] = ()) -> str:
    """Hash of the data the analysis reads (catalog, fingerprints): a changed catalog invalidates everything."""
    digest = hashlib.sha256()
    for path in sorted(files) or sorted(p for p in DATA_DIR.iterdir() if p.is_file()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def describe(*values) -> str:
    """A canonical text for settings and options (sets sorted, callables left out): part of the cache key."""
    import dataclasses
    import json

    def plain(value):
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                    if not callable(getattr(value, f.name))}
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


class Cache:
    def __init__(self, root: Path, configuration: str, catalog: Optional[str] = None,
                 folder: Optional[Path] = None) -> None:
        self.folder = folder if folder is not None else root / CACHE_DIR  # `--cache-dir` moves it
        self.entries = self.folder / "entries"
        # everything every entry depends on, besides the file itself
        self.salt = hashlib.sha256(
            "\0".join((__version__, catalog if catalog is not None else catalog_digest(), configuration)).encode()
        ).hexdigest()
        self.hits = 0
        self.misses = 0

    def key(self, candidate, data: bytes) -> str:
        from fsdp_unpatch.sourcefile import module_name_for

        module, is_package = module_name_for(candidate.path)
        digest = hashlib.sha256(self.salt.encode())
        for part in (candidate.display.encode(), f"{module}:{is_package}".encode(), data):
            digest.update(len(part).to_bytes(8, "little") + part)
        return digest.hexdigest()

    def group_key(self, keys: Iterable[str]) -> str:
        """The key of files analysed together: all their keys, in run order."""
        return hashlib.sha256(("group\0" + "\0".join(keys)).encode()).hexdigest()

    def get(self, key: Optional[str]):
        if key is None:
            return None
        try:
            with open(self.entries / key[:2] / key, "rb") as handle:
                outcome = pickle.load(handle)
        except Exception:  # missing, truncated, corrupt, from another Python: a miss
            self.misses += 1
            return None
        self.hits += 1
        return outcome

    def put(self, key: Optional[str], outcome) -> None:
        if key is None:
            return
        try:
            self._prepare()
            folder = self.entries / key[:2]
            folder.mkdir(exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    pickle.dump(outcome, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, folder / key)
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
        except OSError:
            pass  # a read-only tree or a full disk: run without caching

    def _prepare(self) -> None:
        if self.entries.is_dir():
            return
        self.entries.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            path = self.folder / name
            if not path.exists():
                path.write_text(text)


def clear(root: Path) -> bool:
    """Remove the cache folder under `root`; whether there was one."""
    folder = root / CACHE_DIR
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True
