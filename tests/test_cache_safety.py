"""The cache is data, signed by its user, in a folder only its user controls (issue 12, findings 1 and 5)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fsdp_unpatch.run import cache as cache_module
from fsdp_unpatch.run.cache import CACHE_DIR
from tests.patch_texts import removable

MARKER = "pwned-by-cache"


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "patch.py").write_text(removable())
    return project


def _cli(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _entries(project: Path) -> list[Path]:
    return [p for p in (project / CACHE_DIR / "entries").rglob("*") if p.is_file()]


def _results(value: dict) -> list[dict]:
    """The file results an entry holds: one (outcome), a linked group's, or none (held fixes, FSU306's import
    facts and the index of unchanged files, which the run writes only for files older than the racy window)."""
    return [value["result"]] if value["kind"] == "outcome" else value["results"] if value["kind"] == "group" else []


class _Payload:
    """Unpickling this runs code: it writes a marker file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_malicious_pickle_in_the_cache_is_never_loaded(tmp_path: Path) -> None:
    project = _project(tmp_path)
    first = _cli(project, "check", "--output-format", "concise", ".")
    assert first.returncode == 1 and _entries(project)
    marker = tmp_path / MARKER
    for entry in _entries(project):
        entry.write_bytes(pickle.dumps(_Payload(str(marker))))
    again = _cli(project, "check", "--output-format", "concise", ".")
    assert not marker.exists(), "the cache ran code"
    assert again.stdout.splitlines()[:-1] == first.stdout.splitlines()[:-1]
    assert again.returncode == 1


def test_a_forged_entry_is_ignored(tmp_path: Path) -> None:
    """An entry that says "no findings", under the right key, in the right format, but not signed by this user."""
    project = _project(tmp_path)
    first = _cli(project, "check", "--output-format", "json", ".")
    assert first.returncode == 1 and json.loads(first.stdout)
    for entry in _entries(project):
        data = json.loads(entry.read_bytes())
        value = data["value"]
        if value["kind"] == "held":  # check's verdict on which fixes fix would hold back: forged too
            value["findings"] = [["pkg/patch.py", "FSU001", 1, 1, "forged"]]
        results = _results(value)
        for result in results:
            result["findings"] = []
        data["signature"] = "0" * 64
        entry.write_text(json.dumps(data))
    again = _cli(project, "check", "--output-format", "json", ".")
    assert again.returncode == 1
    assert json.loads(again.stdout) == json.loads(first.stdout)


def test_entries_signed_by_another_user_are_ignored(tmp_path: Path) -> None:
    """A cache committed to a repository was signed with its author's key, not the reader's."""
    project = _project(tmp_path)
    author = {"XDG_CACHE_HOME": str(tmp_path / "author-home")}
    assert _cli(project, "check", ".", env=author).returncode == 1
    for entry in _entries(project):  # the author's entries say "nothing here"; they are well signed, by the author
        data = json.loads(entry.read_bytes())
        value = data["value"]
        if value["kind"] == "held":  # check's verdict on which fixes fix would hold back: forged too
            value["findings"] = [["pkg/patch.py", "FSU001", 1, 1, "forged"]]
        for result in _results(value):
            result["findings"] = []
        secret = (tmp_path / "author-home" / "fsdp-unpatch" / "secret").read_bytes().strip()
        import hashlib
        import hmac

        body = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
        data["signature"] = hmac.new(secret, data["key"].encode() + b"\0" + body, hashlib.sha256).hexdigest()
        entry.write_text(json.dumps(data))
    assert _cli(project, "check", ".", env=author).returncode == 0  # the author's own key accepts them
    reader = _cli(project, "check", "--output-format", "concise", ".", env={"XDG_CACHE_HOME": str(tmp_path / "r")})
    assert reader.returncode == 1 and "FSU002" in reader.stdout


@pytest.mark.parametrize("how", ["symbolic link", "group-writable", "world-writable", "another owner"])
def test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it(tmp_path: Path, how: str) -> None:
    project = _project(tmp_path)
    folder = project / CACHE_DIR
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if how == "symbolic link":
        folder.symlink_to(elsewhere)
    else:
        folder.mkdir()
        if how == "another owner":
            if os.geteuid() != 0:
                pytest.skip("only root can give a folder to another user")
            os.chown(folder, 12345, 12345)
        else:
            folder.chmod(0o775 if how == "group-writable" else 0o777)
    done = _cli(project, "check", "--output-format", "concise", ".")
    assert done.returncode == 1 and "FSU002" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if "not using the cache" in line]
    assert len(warnings) == 1, done.stderr
    assert list(elsewhere.iterdir()) == []
    if how != "symbolic link":
        assert list(folder.iterdir()) == []  # nothing was written into it
    cleaned = _cli(project, "clean")
    assert "Traceback" not in cleaned.stderr
    assert cleaned.returncode == 0, cleaned.stderr
    assert not os.path.lexists(folder) and elsewhere.is_dir()


def test_clean_on_a_file_named_like_the_cache_says_so_without_a_traceback(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / CACHE_DIR).write_text("not a cache")
    cleaned = _cli(project, "clean")
    assert cleaned.returncode == 2 and "not a folder" in cleaned.stderr and "Traceback" not in cleaned.stderr
    assert (project / CACHE_DIR).read_text() == "not a cache"


def test_the_key_covers_the_tools_own_build(tmp_path: Path, monkeypatch) -> None:
    """Two builds with one version number must not share entries: the key hashes the package's files."""
    project = _project(tmp_path)
    one = cache_module.Cache(project, "settings").salt
    monkeypatch.setattr(cache_module, "build_digest", lambda: "another build")
    assert cache_module.Cache(project, "settings").salt != one
    assert (
        len(cache_module.build_digest.__wrapped__()) == 64
        if hasattr(cache_module.build_digest, "__wrapped__")
        else True
    )


def test_a_changed_file_outside_a_partial_run_gives_a_fresh_result(tmp_path: Path) -> None:
    """Whether a definition is deleted depends on files outside the run: they are part of the key."""
    project = _project(tmp_path)
    outside = project / "tests" / "test_uses.py"
    outside.parent.mkdir()
    outside.write_text("from pkg.patch import _apply_fsdp_patch\n")
    first = _cli(project, "check", "--output-format", "concise", "pkg/patch.py")
    assert "kept for now" in first.stdout
    outside.write_text("import pkg\n")
    again = _cli(project, "check", "--output-format", "concise", "pkg/patch.py")
    assert "kept for now" not in again.stdout and "FSU003" in again.stdout


def test_an_outside_file_edited_to_the_same_size_with_its_time_put_back_gives_a_fresh_result(tmp_path: Path) -> None:
    """The files outside a partial run are keyed by their change time too, which no `os.utime` puts back."""
    project = _project(tmp_path)
    outside = project / "tests" / "test_uses.py"
    outside.parent.mkdir()
    before = "from pkg.patch import _apply_fsdp_patch\n"
    outside.write_text(before)
    first = _cli(project, "check", "--output-format", "concise", "pkg/patch.py")
    assert "kept for now" in first.stdout
    times = os.stat(outside)
    after = "import pkg  # no longer the installer\n".ljust(len(before) - 1) + "\n"
    assert len(after) == len(before)
    outside.write_text(after)
    os.utime(outside, ns=(times.st_atime_ns, times.st_mtime_ns))
    again = _cli(project, "check", "--output-format", "concise", "pkg/patch.py")
    assert "kept for now" not in again.stdout and "FSU003" in again.stdout


def test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them(tmp_path: Path) -> None:
    """`--cache-dir .` (or a folder of notes) is not filled, not tagged for backup tools to skip, and `clean`
    removes only what the cache writes there."""
    project = _project(tmp_path / "project")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "notes.txt").write_text("precious\n")
    done = _cli(project, "check", "--cache-dir", str(notes), ".")
    assert "not using the cache" in done.stderr and "holds files that are not the cache's" in done.stderr
    assert sorted(os.listdir(notes)) == ["notes.txt"]
    here = _cli(project, "check", "--cache-dir", ".", ".")
    assert "holds files that are not the cache's" in here.stderr and not (project / "CACHEDIR.TAG").exists()
    # a cache folder of ours that someone later put a file into: clean takes its own files only
    own = tmp_path / "own"
    assert _cli(project, "check", "--cache-dir", str(own), ".").returncode == 1
    assert (own / "CACHEDIR.TAG").is_file() and (own / "entries").is_dir()
    (own / "keep.txt").write_text("mine\n")
    cleaned = _cli(project, "clean", "--cache-dir", str(own))
    assert cleaned.returncode == 0 and "left alone" in cleaned.stdout
    assert sorted(os.listdir(own)) == ["keep.txt"]
    assert _cli(project, "clean").returncode == 0 and not (project / CACHE_DIR).exists()


def test_runs_that_make_the_signing_key_at_once_all_get_it(tmp_path: Path, monkeypatch) -> None:
    """The first runs of a user, started together, race to make the key: each must end with the same one.
    The key was created empty (`O_EXCL`) and written after, so a run that read it in between got no key and
    ran without cache and without recording what its fix removed. Making the key is slowed here (`urandom`
    may block while the system gathers entropy) to open that window wide."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    real = os.urandom

    def slow_urandom(size: int) -> bytes:
        time.sleep(0.2)
        return real(size)

    monkeypatch.setattr(os, "urandom", slow_urandom)
    with ThreadPoolExecutor(4) as pool:
        keys = list(pool.map(lambda _: cache_module.user_secret(), range(4)))
    assert None not in keys and len(set(keys)) == 1, keys
    folder = tmp_path / "home" / "fsdp-unpatch"
    assert os.listdir(folder) == ["secret"]  # no temporary file left behind
    assert (folder / "secret").stat().st_mode & 0o777 == 0o600
