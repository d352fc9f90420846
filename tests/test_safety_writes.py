"""Faithful writes: encoding, line endings, final newline, permissions, owner, links; atomic, nothing left behind.

Each file is `head + patch + tail`; `fix` must leave exactly `head + tail` (see tests/patch_texts.py).
"""

from __future__ import annotations

import errno
import os
import signal
import stat
from pathlib import Path

import pytest

from fsdp_unpatch.files import reading, writing
from tests.helpers import fix_tree
from tests.patch_texts import GUARDED_FIXED, guarded, removable

HEAD = '"""Module docstring."""\n'
TAIL = "\n\nVALUE = 1  # kept\n\n\ndef keep():\n    return VALUE\n"


def _codes(result) -> list[str]:
    return sorted(f.code for f in result.findings)


def _fix_one(tmp_path: Path, data: bytes, name: str = "module.py") -> tuple[Path, object]:
    target = tmp_path / name
    target.write_bytes(data)
    return target, fix_tree(tmp_path)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# encodings -----------------------------------------------------------------------------------------
def test_pep263_latin1_file_keeps_its_cookie_and_bytes(tmp_path: Path) -> None:
    head = '# -*- coding: latin-1 -*-\n"""Caf\xe9 cr\xe8me."""\n'
    tail = "\n\nVALUE = '\xe9t\xe9'  # \xe0 garder\n"
    target, result = _fix_one(tmp_path, (head + removable() + tail).encode("latin-1"))
    assert "FSU001" in _codes(result)
    assert target.read_bytes() == (head + tail).encode("latin-1")
    assert b"\xe9t\xe9" in target.read_bytes()  # not re-encoded to UTF-8 (which would be \xc3\xa9)


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf", b""], ids=["utf8-bom", "utf8"])
def test_utf8_file_keeps_or_lacks_its_bom(tmp_path: Path, bom: bytes) -> None:
    head = '"""Gr\u00fc\u00dfe \u2014 \u4f60\u597d."""\n'
    tail = "\n\nVALUE = '\u00e9\u00e9'\n"
    target, result = _fix_one(tmp_path, bom + (head + removable() + tail).encode("utf-8"))
    assert result.changed
    assert target.read_bytes() == bom + (head + tail).encode("utf-8")


# line endings --------------------------------------------------------------------------------------
def test_crlf_file_stays_crlf(tmp_path: Path) -> None:
    text = HEAD + removable() + TAIL
    target, result = _fix_one(tmp_path, text.replace("\n", "\r\n").encode())
    assert result.changed
    assert target.read_bytes() == (HEAD + TAIL).replace("\n", "\r\n").encode()


def test_crlf_file_new_lines_are_crlf(tmp_path: Path) -> None:
    target, _ = _fix_one(tmp_path, guarded().replace("\n", "\r\n").encode())
    assert target.read_bytes() == GUARDED_FIXED.replace("\n", "\r\n").encode()


def test_mixed_endings_untouched_lines_keep_theirs(tmp_path: Path) -> None:
    # Alternate endings line by line through the whole file, patch included.
    lines = (HEAD + removable() + TAIL).splitlines(keepends=True)
    mixed = ["".join(line[:-1] + ("\r\n" if i % 2 else "\n")) for i, line in enumerate(lines)]
    patch_lines = len((HEAD + removable()).splitlines()) - len(HEAD.splitlines())
    expected = mixed[:1] + mixed[1 + patch_lines :]
    target, result = _fix_one(tmp_path, "".join(mixed).encode())
    assert result.changed
    assert target.read_bytes() == "".join(expected).encode()


@pytest.mark.parametrize(
    "first, rest", [("\n", "\r\n"), ("\r\n", "\n")], ids=["lf-first-crlf-rest", "crlf-first-lf-rest"]
)
def test_new_lines_follow_the_dominant_ending_not_the_first_line(tmp_path: Path, first: str, rest: str) -> None:
    # libcst ends new lines like the file's first line; most of this file's lines end otherwise.
    text = "import os" + first + guarded().replace("\n", rest)
    target, _ = _fix_one(tmp_path, text.encode())
    fixed = target.read_bytes().decode()
    assert fixed == "import os" + first + GUARDED_FIXED.replace("\n", rest)
    assert ("        pass" + rest) in fixed


def test_missing_final_newline_stays_missing(tmp_path: Path) -> None:
    tail = TAIL.rstrip("\n")
    target, result = _fix_one(tmp_path, (HEAD + removable() + tail).encode())
    assert result.changed
    assert target.read_bytes() == (HEAD + tail).encode()
    assert not target.read_bytes().endswith(b"\n")


def test_patch_at_the_very_end_without_final_newline(tmp_path: Path) -> None:
    target, result = _fix_one(tmp_path, (HEAD + removable().rstrip("\n")).encode())
    assert result.changed
    assert target.read_bytes() == HEAD.rstrip("\n").encode()  # the file still does not end with a newline


# files libcst cannot give back byte for byte ------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        HEAD + "\x0cVALUE = 1\n",  # a form feed at the start of a line: libcst drops it
        HEAD.replace("\n", "\r") + "VALUE = 1\r",  # classic Mac line endings: libcst drops the last one
    ],
    ids=["form-feed", "cr-only"],
)
def test_files_libcst_does_not_round_trip_are_never_rewritten(tmp_path: Path, text: str) -> None:
    data = (removable() + text).encode()
    target, result = _fix_one(tmp_path, data)
    errors = [f for f in result.findings if f.code == "FSU903"]
    assert errors and "byte for byte" in errors[0].message
    assert not result.changed
    assert target.read_bytes() == data


# permissions, owner, links -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [0o640, 0o755, 0o2750])
def test_permission_bits_are_kept(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "module.py"
    target.write_text(HEAD + removable() + TAIL)
    os.chmod(target, mode)
    assert fix_tree(tmp_path).changed
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_text() == HEAD + TAIL


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_owner_and_group_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "module.py"
    target.write_text(HEAD + removable() + TAIL)
    os.chown(target, 12345, 23456)
    assert fix_tree(tmp_path).changed
    assert (target.stat().st_uid, target.stat().st_gid) == (12345, 23456)
    assert target.read_text() == HEAD + TAIL


def test_hard_link_keeps_its_identity_and_every_link_sees_the_fix(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    target = project / "module.py"
    target.write_text(HEAD + removable() + TAIL)
    os.chmod(target, 0o644)
    os.link(target, elsewhere / "same.py")
    inode = target.stat().st_ino
    assert fix_tree(project).changed
    assert target.stat().st_ino == inode and target.stat().st_nlink == 2
    assert (elsewhere / "same.py").read_text() == HEAD + TAIL == target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert _leftovers(project) == [] and _leftovers(elsewhere) == []  # the backup is gone


def test_hard_link_write_failure_restores_the_old_content(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "module.py"
    original = HEAD + removable() + TAIL
    target.write_text(original)
    os.link(target, tmp_path / "other_name.txt")
    calls = []
    real_fsync = os.fsync

    def failing_fsync(descriptor: int) -> None:
        calls.append(descriptor)
        if len(calls) == 2:  # the first flushes the backup, the second the overwritten file
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(descriptor)

    monkeypatch.setattr(writing.os, "fsync", failing_fsync)
    result = fix_tree(tmp_path)
    errors = [f.message for f in result.findings if f.code == "FSU903"]
    assert errors and "Input/output error" in errors[0] and "unchanged" in errors[0]
    assert target.read_text() == original
    assert _leftovers(tmp_path) == []


def test_symbolic_link_stays_a_link_and_its_target_is_fixed(tmp_path: Path) -> None:
    real = tmp_path / "real_module.py"
    real.write_text(HEAD + removable() + TAIL)
    (tmp_path / "alias.py").symlink_to("real_module.py")
    result = fix_tree(tmp_path)
    assert result.changed
    assert (tmp_path / "alias.py").is_symlink() and os.readlink(tmp_path / "alias.py") == "real_module.py"
    assert real.read_text() == HEAD + TAIL


# atomicity -----------------------------------------------------------------------------------------
def test_write_goes_through_a_flushed_temporary_in_the_same_folder(tmp_path: Path, monkeypatch) -> None:
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}") if os.path.exists("/proc/self/fd") else "?"))
        real_fsync(descriptor)

    def replace(source, destination) -> None:
        events.append(("replace", str(source), str(destination), Path(source).read_text()))
        real_replace(source, destination)

    monkeypatch.setattr(writing.os, "fsync", fsync)
    monkeypatch.setattr(writing.os, "replace", replace)
    target, result = _fix_one(tmp_path, (HEAD + removable() + TAIL).encode())
    assert result.changed
    replaced = [e for e in events if e[0] == "replace"]
    assert len(replaced) == 1
    _, temporary, destination, content = replaced[0]
    assert Path(temporary).parent == target.parent and destination == str(target)
    assert content == HEAD + TAIL  # complete before the rename
    if os.path.exists("/proc/self/fd"):
        assert ("fsync", temporary) in events[: events.index(replaced[0])]  # flushed before the rename
    assert _leftovers(tmp_path) == []


def test_failed_rename_leaves_the_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    def no_space(source, destination) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writing.os, "replace", no_space)
    data = (HEAD + removable() + TAIL).encode()
    target, result = _fix_one(tmp_path, data)
    errors = [f.message for f in result.findings if f.code == "FSU903"]
    assert errors == ["cannot write file: No space left on device; the file is unchanged"]
    assert target.read_bytes() == data
    assert _leftovers(tmp_path) == []
    assert not result.changed


def test_keyboard_interrupt_inside_a_write_leaves_the_file_whole(tmp_path: Path, monkeypatch) -> None:
    def interrupted(descriptor: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(writing.os, "fsync", interrupted)
    data = (HEAD + removable() + TAIL).encode()
    target = tmp_path / "module.py"
    target.write_bytes(data)
    with pytest.raises(KeyboardInterrupt):
        fix_tree(tmp_path)
    assert target.read_bytes() == data
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_ctrl_c_during_a_write_waits_until_the_write_is_done(tmp_path: Path, monkeypatch, ctrl_c_raises) -> None:
    """SIGINT sent between the temporary's flush and the rename: the rename still happens, then the run stops."""
    real_replace = os.replace
    delivered_before_rename = []

    def replace_after_sigint(source, destination) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        delivered_before_rename.append(True)  # no KeyboardInterrupt yet: the signal is held
        real_replace(source, destination)

    monkeypatch.setattr(writing.os, "replace", replace_after_sigint)
    target = tmp_path / "module.py"
    target.write_text(HEAD + removable() + TAIL)
    with pytest.raises(KeyboardInterrupt):
        fix_tree(tmp_path)
    assert delivered_before_rename == [True]
    assert target.read_text() == HEAD + TAIL  # wholly new
    assert _leftovers(tmp_path) == []


# a fix that empties a file deletes it (FSU305): never through a link, never a read-only file -------------
def test_emptied_file_behind_a_symbolic_link_is_not_deleted(tmp_path: Path) -> None:
    from fsdp_unpatch.fixes.module_edits import delete_file

    (tmp_path / "real_test.py").write_text("x = 1\n")
    link = tmp_path / "test_link.py"
    link.symlink_to("real_test.py")
    with pytest.raises(reading.SourceError, match="symbolic link; not deleted"):
        delete_file(reading.read_source(link, "test_link.py"))
    assert link.is_symlink() and (tmp_path / "real_test.py").read_text() == "x = 1\n"


def test_emptied_read_only_file_is_not_deleted(tmp_path: Path) -> None:
    from fsdp_unpatch.fixes.module_edits import delete_file

    path = tmp_path / "test_frozen.py"
    path.write_text("x = 1\n")
    os.chmod(path, 0o444)
    with pytest.raises(reading.SourceError, match="read-only; not deleted"):
        delete_file(reading.read_source(path, "test_frozen.py"))
    assert path.read_text() == "x = 1\n"


def test_ctrl_c_handed_to_another_thread_still_waits_until_the_write_is_done(
    tmp_path: Path, monkeypatch, ctrl_c_raises
) -> None:
    """The kernel may hand a process-wide SIGINT to any thread that does not block it (torch's, an embedding
    application's): the write still finishes before the run stops."""
    import threading
    import time

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # started outside the write: it does not block SIGINT
    other.start()
    real_replace = os.replace
    delivered_before_rename = []

    def replace_after_sigint(source, destination) -> None:
        signal.pthread_kill(other.ident, signal.SIGINT)
        time.sleep(0.2)  # the handler's turn comes in this thread, at once unless it is held
        delivered_before_rename.append(True)
        real_replace(source, destination)

    monkeypatch.setattr(writing.os, "replace", replace_after_sigint)
    target = tmp_path / "module.py"
    target.write_text(HEAD + removable() + TAIL)
    try:
        with pytest.raises(KeyboardInterrupt):
            fix_tree(tmp_path)
    finally:
        stop.set()
        other.join()
    assert delivered_before_rename == [True]
    assert target.read_text() == HEAD + TAIL  # wholly new
    assert _leftovers(tmp_path) == []
