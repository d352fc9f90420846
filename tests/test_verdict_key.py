"""The held-back verdict's cache key (`run/held_back.py`, issue 23 item 4): a file last changed well before the
run stands for its content by its stat, as the result cache trusts it, so a warm `check` reads no file for the
key; a file changed since, in content or in mode, still changes the key, and a file changed too recently to
trust its stat is read."""

from __future__ import annotations

import os
from pathlib import Path

from fsdp_unpatch.files import regular
from fsdp_unpatch.run import cache as cache_module
from fsdp_unpatch.run.held_back import verdict_key


class _Cache:
    """The part of `run/cache.Cache` the key uses: the salt, and a store for the remembered digests."""

    usable = True
    salt = "salt"

    def __init__(self) -> None:
        self.store: dict = {}

    def digests_key(self) -> str:
        return "digests"

    def get(self, key: str, counted: bool = True):
        return self.store.get(key)

    def put(self, key: str, value) -> None:
        self.store[key] = value


def _project(root: Path) -> list[str]:
    for name, text in {"pkg/__init__.py": "", "pkg/patch.py": "def f():\n    return 1\n", "user.py": "X = 1\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return sorted(str(p) for p in root.rglob("*.py"))


def _reads(monkeypatch) -> list[str]:
    read: list[str] = []
    real = regular.read_regular
    monkeypatch.setattr(regular, "read_regular", lambda path: read.append(str(path)) or real(path))
    return read


def _key(root: Path, paths: list[str], cache: _Cache | None = None) -> str:
    key = verdict_key(cache if cache is not None else _Cache(), paths, [str(root)])
    assert key is not None
    return key


def test_a_warm_key_reads_no_file_whose_stat_it_can_trust(tmp_path: Path, monkeypatch) -> None:
    paths = _project(tmp_path)
    monkeypatch.setattr(cache_module, "RACY_NS", -(10**12))  # as if every file had been written long ago
    read = _reads(monkeypatch)
    cache = _Cache()
    cold = _key(tmp_path, paths, cache)
    assert sorted(read) == paths  # hashed once ...
    read.clear()
    assert _key(tmp_path, paths, cache) == cold
    assert read == []  # ... then known by their stat


def test_a_file_changed_since_changes_the_key_even_with_its_size_and_mtime_kept(tmp_path: Path, monkeypatch) -> None:
    paths = _project(tmp_path)
    monkeypatch.setattr(cache_module, "RACY_NS", -(10**12))
    before = _key(tmp_path, paths)
    patch = tmp_path / "pkg" / "patch.py"
    info = patch.stat()
    patch.write_text("def g():\n    return 1\n")  # same size
    os.utime(patch, ns=(info.st_atime_ns, info.st_mtime_ns))  # the modification time put back: ctime moves on
    after = _key(tmp_path, paths)
    assert after != before
    patch.chmod(0o444)
    assert _key(tmp_path, paths) != after


def test_a_file_changed_too_recently_is_read(tmp_path: Path, monkeypatch) -> None:
    paths = _project(tmp_path)  # just written: within `RACY_NS` of now
    read = _reads(monkeypatch)
    first = _key(tmp_path, paths)
    assert sorted(read) == paths
    (tmp_path / "user.py").write_text("X = 2\n")
    assert _key(tmp_path, paths) != first


def test_a_warm_key_asks_nothing_of_a_file_the_walk_listed(tmp_path: Path, monkeypatch) -> None:
    """The walk's stat and listing (a symbolic link or not) serve the key: no stat or lstat of its own."""
    paths = _project(tmp_path)
    (tmp_path / "link.py").symlink_to(tmp_path / "user.py")
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    monkeypatch.setattr(cache_module, "RACY_NS", -(10**12))
    from fsdp_unpatch.project import identity

    with identity.one_walk():
        identity.project_files([str(tmp_path)], paths)  # the run's walk, as FSU306 takes it first
        asked: list[str] = []
        for name in ("stat", "lstat"):
            real = getattr(os, name)
            monkeypatch.setattr(
                os, name, lambda p, *a, _real=real, **k: asked.append(os.fspath(p)) or _real(p, *a, **k)
            )
        first = _key(tmp_path, paths)
        monkeypatch.undo()
    assert [p for p in asked if p.endswith(".py")] == []
    monkeypatch.setattr(cache_module, "RACY_NS", -(10**12))
    assert _key(tmp_path, paths) == first  # the same key without a shared walk
