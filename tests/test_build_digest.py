"""The hash of the tool's own build in every cache key (`run/cache_key.py`, issue 23 item 4): a file last changed
well before the run enters it by its stat, so a run reads none of the package's files for it; any edit still
changes it, and compiled bytecode does not."""

from __future__ import annotations

import os
from pathlib import Path

from fsdp_unpatch.run import cache_key


def _package(root: Path) -> Path:
    package = root / "tool"
    for name, text in {"__init__.py": "", "mod.py": "X = 1\n", "data/table.toml": "a = 1\n"}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    return package


def test_old_files_are_hashed_by_their_stat_without_being_read(tmp_path: Path, monkeypatch) -> None:
    package = _package(tmp_path)
    monkeypatch.setattr(cache_key, "RACY_NS", -(10**12))  # as if every file had been written long ago
    read: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    assert cache_key.files_digest([package]) == cache_key.files_digest([package])
    assert read == []


def test_an_edit_that_keeps_size_and_mtime_changes_the_hash(tmp_path: Path, monkeypatch) -> None:
    package = _package(tmp_path)
    monkeypatch.setattr(cache_key, "RACY_NS", -(10**12))
    before = cache_key.files_digest([package])
    module = package / "mod.py"
    info = module.stat()
    module.write_text("X = 2\n")
    os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert cache_key.files_digest([package]) != before


def test_bytecode_is_left_out_and_fresh_files_are_read(tmp_path: Path) -> None:
    package = _package(tmp_path)
    before = cache_key.files_digest([package])  # fresh: hashed by their bytes, so the same twice
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (package / "stray.pyc").write_bytes(b"\0")
    assert cache_key.files_digest([package]) == before
    (package / "new.py").write_text("")
    assert cache_key.files_digest([package]) != before
