"""Hostile and odd input: a clear message naming the file and the problem, exit 2, the other files still fixed.

Every run here is the real command in a subprocess (a crash of libcst's native parser would kill it),
over a folder that also holds `good.py`, a removable patch that must be fixed all the same.
"""

from __future__ import annotations

import ctypes
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from tests.patch_texts import PREFILTER_BAIT, cli, removable

BAIT = PREFILTER_BAIT.encode()  # so that the prefilter sends the file to the parser
TAIL = "\n\nVALUE = 1\n"


def _write(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda folder: (folder / name).write_bytes(data)


def _symlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).symlink_to(target)


def _loop(folder: Path) -> None:
    (folder / "loop_a.py").symlink_to("loop_b.py")
    (folder / "loop_b.py").symlink_to("loop_a.py")


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "pipe.py")


def _sparse(name: str, size: int) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        with open(folder / name, "wb") as handle:
            handle.truncate(size)  # no data blocks: instant, and a reader would get `size` NUL bytes

    return make


def _read_only(folder: Path) -> None:
    path = folder / "read_only.py"
    path.write_text(removable() + TAIL)
    os.chmod(path, 0o444)


def _huge(folder: Path, megabytes: int = 30) -> None:
    line = b"value = [1, 2, 'text']  # padding\n"
    (folder / "huge.py").write_bytes(BAIT + line * (megabytes * 1024 * 1024 // len(line)))


def _too_large_to_parse(folder: Path) -> None:
    """One MB over the 4 MB limit is all the message and the exit code need: the 30 MB file is kept for
    `test_huge_file_is_cheap`, which measures time and memory."""
    _huge(folder, 5)


# (what to create, the problem's line in `--output-format concise`)
CASES = {
    "syntax-error": (
        _write("syntax.py", BAIT + b"x = (\n"),
        "syntax.py:3:5: FSU901 [error] syntax error: '(' was never closed",
    ),
    "python-2": (
        _write("legacy.py", BAIT + b"print 'hello'\n"),
        "legacy.py:3:1: FSU901 [error] syntax error: Missing parentheses in call to 'print'",
    ),
    "undecodable": (
        _write("latin.py", BAIT + b"x = 'caf\xe9'\n"),
        "latin.py:3:9: FSU902 [error] cannot decode file as utf-8: byte(s) e9 at line 3, column 9",
    ),
    "wrong-cookie": (
        _write("cookie.py", b"# -*- coding: ascii -*-\n" + BAIT + b"x = 'caf\xc3\xa9'\n"),
        "cookie.py:4:9: FSU902 [error] cannot decode file as ascii: byte(s) c3 at line 4, column 9",
    ),
    "unknown-cookie": (
        _write("klingon.py", b"# coding: klingon\n" + BAIT),
        "klingon.py:1:1: FSU902 [error] cannot decode file: unknown encoding: klingon",
    ),
    "nul-byte": (
        _write("binary.py", BAIT + b"x = 1\x00\n"),
        "binary.py:3:6: FSU902 [error] file contains a NUL byte at line 3, column 6",
    ),
    "deep-parentheses": (
        _write("parens.py", BAIT + b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n"),
        "FSU901 [error] too deeply nested to parse safely: too many nested parentheses",
    ),
    "deep-unary": (
        _write("unary.py", BAIT + b"x = " + b"-" * 5000 + b"1\n"),
        "unary.py:1:1: FSU901 [error] too deeply nested to parse safely",
    ),
    "deep-indentation": (
        _write("indent.py", BAIT + b"".join(b" " * i + b"if x:\n" for i in range(120))),
        "FSU901 [error] too deeply nested to parse safely: too many levels of indentation",
    ),
    # Valid for CPython, but 8 MiB of stack are not enough for libcst's parser: it would crash the process.
    "long-boolean-chain": (
        _write("chain.py", BAIT + b"x = a" + b" and a" * 20000 + b"\n"),
        "chain.py:1:1: FSU901 [error] too deeply nested to analyse",
    ),
    "huge-file": (
        _too_large_to_parse,
        "huge.py:1:1: FSU904 [error] file too large to parse safely: 5.0 MB (the limit is 4.0 MB",
    ),
    "too-large-to-read": (
        _sparse("enormous.py", 65 * 1024 * 1024),
        "enormous.py:1:1: FSU904 [error] file too large to read: 65.0 MB (the limit is 64.0 MB)",
    ),
    "broken-symlink": (
        _symlink("dangling.py", "nowhere.py"),
        "dangling.py:1:1: FSU902 [error] cannot read file: broken symbolic link (to 'nowhere.py'",
    ),
    "symlink-loop": (_loop, "loop_a.py:1:1: FSU902 [error] cannot read file: symbolic link loop (to 'loop_b.py')"),
    "named-pipe": (_fifo, "pipe.py:1:1: FSU902 [error] cannot read file: it is a named pipe, not a regular file"),
    "read-only-needing-a-fix": (_read_only, "read_only.py:1:1: FSU903 [error] file is read-only; not written"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_odd_file_is_named_and_the_others_are_fixed(tmp_path: Path, case: str) -> None:
    make, expected = CASES[case]
    make(tmp_path)
    good = tmp_path / "good.py"
    good.write_text(removable() + TAIL)
    before = {
        p.name: p.read_bytes()
        for p in tmp_path.iterdir()
        if p.name != "good.py" and p.is_file() and not stat.S_ISFIFO(p.stat().st_mode) and p.stat().st_size < 2**20
    }
    run = cli("fix", "--output-format", "concise", ".", cwd=tmp_path)
    output = run.stdout.decode()
    # a file that does not parse (FSU901) is a finding, as in ruff: exit 1; one that cannot be read or written, 2
    assert run.returncode == (1 if "FSU901" in expected else 2), output + run.stderr.decode()
    assert expected in output
    assert "Traceback" not in run.stderr.decode()
    assert good.read_text() == TAIL, "the other files must still be fixed"
    for name, data in before.items():
        assert (tmp_path / name).read_bytes() == data, f"{name} must be left alone"


def test_read_only_file_keeps_its_mode(tmp_path: Path) -> None:
    _read_only(tmp_path)
    cli("fix", ".", cwd=tmp_path)
    assert stat.S_IMODE((tmp_path / "read_only.py").stat().st_mode) == 0o444


def test_huge_file_is_cheap(tmp_path: Path) -> None:
    """Tens of MB, with and without an FSDP token: seconds and a few hundred MB at most, never a parse."""
    _huge(tmp_path)
    line = b"value = [1, 2, 'text']  # padding\n"
    (tmp_path / "huge_plain.py").write_bytes(line * (30 * 1024 * 1024 // len(line)))
    code = (
        "import resource, subprocess, sys, time; start = time.perf_counter();"
        "run = subprocess.run([sys.executable, '-m', 'fsdp_unpatch', 'check', '--isolated', '--no-cache', '.'],"
        " capture_output=True); elapsed = time.perf_counter() - start;"
        "print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, elapsed)"
    )
    measured = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    returncode, peak_kib, elapsed = measured.stdout.split()
    assert returncode == "2"  # huge.py: FSU904
    assert int(peak_kib) < 400 * 1024, f"peak memory {int(peak_kib) // 1024} MiB"
    assert float(elapsed) < 30


def test_empty_file_and_comment_only_file_are_fine(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_bytes(b"")
    # Passes the prefilter (it over-approximates), so the parser sees a module of comments only.
    (tmp_path / "comments.py").write_text("".join(f"# {line}\n" for line in PREFILTER_BAIT.splitlines()))
    (tmp_path / "blank.py").write_text("\n\n   \n")
    run = cli("fix", "--output-format", "json", ".", cwd=tmp_path)
    assert run.returncode == 0, run.stdout.decode()
    assert run.stdout.decode().strip() == "[]"
    assert (tmp_path / "empty.py").read_bytes() == b""


def test_folder_named_like_a_module_is_walked(tmp_path: Path) -> None:
    folder = tmp_path / "x.py"
    folder.mkdir()
    (folder / "inner.py").write_text(removable() + TAIL)
    run = cli("fix", ".", cwd=tmp_path)
    assert run.returncode == 0, run.stdout.decode()
    assert (folder / "inner.py").read_text() == TAIL
    named = cli("fix", "x.py", cwd=tmp_path)  # named explicitly: still a folder to walk, not an error
    assert named.returncode == 0, named.stdout.decode()


def test_missing_path_is_named_and_the_others_are_fixed(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(removable() + TAIL)
    run = cli("fix", "does_not_exist.py", "good.py", cwd=tmp_path)
    assert run.returncode == 2
    assert "does_not_exist.py: no such file or directory" in run.stderr.decode()
    assert (tmp_path / "good.py").read_text() == TAIL


def test_non_utf8_file_name(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"caf\xe9_patch.py"), "wb") as handle:
        handle.write(removable().encode() + b"\n\nVALUE = 1\n")
    with open(os.path.join(folder, b"caf\xe9_broken.py"), "wb") as handle:
        handle.write(BAIT + b"x = (\n")
    checked = cli("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert checked.returncode == 1  # the syntax error is a finding
    output = checked.stdout.decode()
    assert "caf\\xe9_patch.py:" in output and "FSU001" in output
    assert "caf\\xe9_broken.py:3:5: FSU901" in output
    fixed = cli("fix", ".", cwd=tmp_path)
    assert fixed.returncode == 1
    with open(os.path.join(folder, b"caf\xe9_patch.py"), "rb") as handle:
        assert handle.read() == TAIL.encode()
    json_run = cli("check", "--output-format", "json", ".", cwd=tmp_path)
    assert "caf\\\\xe9_broken.py" in json_run.stdout.decode()  # valid JSON, the byte escaped


def _drop_file_access_override() -> None:
    """In the child: root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so that file modes apply to it."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_drop_capabilities() -> bool:
    try:
        subprocess.run(["true"], preexec_fn=_drop_file_access_override, check=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


@pytest.mark.skipif(sys.platform != "linux", reason="Linux capabilities or file modes")
def test_unreadable_file(tmp_path: Path) -> None:
    """Really unreadable: mode 000, and a process that file modes bind (root is made to drop its override)."""
    if os.geteuid() == 0 and not _can_drop_capabilities():
        pytest.skip("running as root without CAP_SETPCAP: cannot make a file unreadable to the tool")
    secret = tmp_path / "secret.py"
    secret.write_text(removable() + TAIL)
    os.chmod(secret, 0)
    (tmp_path / "good.py").write_text(removable() + TAIL)
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--isolated", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        preexec_fn=_drop_file_access_override if os.geteuid() == 0 else None,
    )
    assert run.returncode == 2
    assert "secret.py:1:1: FSU902 [error] cannot read file: Permission denied" in run.stdout.decode()
    # good.py is still checked, but its fix deletes names an unreadable file of the run may import: held back.
    assert "good.py" in run.stdout.decode() and "secret.py cannot be read" in run.stdout.decode()
    assert (tmp_path / "good.py").read_text() == removable() + TAIL
    os.chmod(secret, 0o644)
    assert secret.read_text() == removable() + TAIL


def test_symlink_leaving_the_walked_folder_is_read_but_never_written(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    real = outside / "shared.py"
    real.write_text(removable() + TAIL)
    (project / "shared_link.py").symlink_to(real)
    checked = cli("check", "--output-format", "concise", ".", cwd=project)
    assert "shared_link.py:" in checked.stdout.decode() and "FSU001" in checked.stdout.decode()
    fixed = cli("fix", "--output-format", "concise", ".", cwd=project)
    assert fixed.returncode == 2
    assert "FSU903 [error] symbolic link to a file outside the folders being fixed" in fixed.stdout.decode()
    assert real.read_text() == removable() + TAIL
    assert (project / "shared_link.py").is_symlink()
    # Named on the command line, the link is what the user asked for: its target is fixed, the link kept.
    named = cli("fix", "shared_link.py", cwd=project)
    assert named.returncode == 0, named.stdout.decode()
    assert real.read_text() == TAIL and (project / "shared_link.py").is_symlink()


NEWEST_SYNTAX = """\
type Pair[T] = tuple[T, T]


def first[T: (int, str)](pair: Pair[T]) -> T:
    match pair:
        case (int() | str() as head, _) if head:
            return head
        case _:
            return pair[0]


class Box[T]:
    def describe(self, items: list[str]) -> str:
        return f"{"-".join(f'{f"{x!r:>{len(x)}}"}' for x in items)}"


try:
    pass
except* ValueError as group:
    print(f"{group=}")
"""


def test_newest_syntax_is_parsed_and_kept(tmp_path: Path) -> None:
    """match, PEP 695 generics and type aliases, PEP 701 f-strings (3.12), except*: libcst parses them even
    where the running Python cannot, and a fix around them changes nothing else. Where CPython's parser cannot
    read the module (before 3.12), the copy's names cannot be resolved: no proof, so `review` and no edit."""
    target = tmp_path / "modern.py"
    target.write_text(NEWEST_SYNTAX + "\n\n" + removable() + TAIL)
    run = cli("fix", "--output-format", "concise", ".", cwd=tmp_path)
    if sys.version_info >= (3, 12):
        assert run.returncode == 0, run.stdout.decode()
        assert target.read_text() == NEWEST_SYNTAX + TAIL  # the patch and the blank lines before it are gone
    else:
        assert run.returncode == 1, run.stdout.decode()
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        assert "FSU101 [review]" in run.stdout.decode()
        assert f"its module uses syntax Python {version} cannot parse" in run.stdout.decode()
        assert target.read_text() == NEWEST_SYNTAX + "\n\n" + removable() + TAIL
