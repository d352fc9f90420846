"""Errors in the input are said, never skipped (issue 12, finding 7): configuration files, unreadable folders,
hard links."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import cli_runner
from tests.patch_texts import removable


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--no-cache", *args, "."],
        cwd=folder,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    "content, where",
    [
        (b'[tool.fsdp-unpatch]\nselect = ["FSU"\n', "line 2"),
        (b'[tool.fsdp-unpatch\nselect = ["FSU"]\n', "line 1"),
        (b'[project]\nname = "x"\n\n[tool.fsdp-unpatch]\nselect = ["FSU"] oops\n', "line 5"),
        (b'[tool.fsdp-unpatch]\n# caf\xe9 (latin-1)\nselect = ["FSU"]\n', "line 2"),
    ],
    ids=["unclosed list", "broken table header", "trailing garbage", "not UTF-8"],
)
def test_a_broken_pyproject_stops_the_run_naming_file_and_line(tmp_path: Path, content: bytes, where: str) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    (tmp_path / "module.py").write_text(removable())
    done = _check(tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(tmp_path / "pyproject.toml") in done.stderr and where in done.stderr
    assert "not valid TOML" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_hard_links_to_one_file_are_fixed_once(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text(removable() + "\nVALUE = 1\n")
    os.link(tmp_path / "one.py", tmp_path / "two.py")
    done = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--isolated", "--no-cache", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "changed on disk" not in done.stdout
    assert (tmp_path / "one.py").read_text() == (tmp_path / "two.py").read_text()
    assert "_patched" not in (tmp_path / "one.py").read_text() and "VALUE = 1" in (tmp_path / "one.py").read_text()
    assert os.stat(tmp_path / "one.py").st_nlink == 2  # still one file


def test_an_unreadable_folder_is_an_error_finding_not_silence(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "fine.py").write_text("x = 1\n")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text(removable())
    real_scandir = os.scandir

    def scandir(path="."):  # as root, mode 000 still opens: refuse the way the kernel does for other users
        if os.path.abspath(os.fspath(path)) == str(locked):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    from fsdp_unpatch.cli import main

    done = cli_runner().invoke(main, ["check", "--isolated", "--no-cache", "--output-format", "concise", "."])
    assert done.exit_code == 2, done.output
    assert "locked:1:1: FSU902 [error] cannot read folder: Permission denied" in done.stdout


def test_five_thousand_implicitly_joined_string_literals_parse(tmp_path: Path) -> None:
    """Valid Python that libcst's native parser alone refuses: analysed (positions exact), never rewritten."""
    joined = "TABLE = (\n" + "".join(f'    "row {n:04d} é"\n' for n in range(5000)) + ")\n"
    source = removable() + "\n" + joined
    (tmp_path / "table.py").write_bytes(source.encode())
    done = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--isolated", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "syntax error" not in done.stdout and done.returncode == 1, done.stdout
    assert "FSU002" in done.stdout and "FSU901" not in done.stdout
    fixed = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--isolated", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "implicitly joined string literals" in fixed.stdout and fixed.returncode == 2
    assert (tmp_path / "table.py").read_bytes() == source.encode()  # refused whole, never half blank


def test_a_gbk_file_is_told_its_coding_cookie_and_reads_with_it(tmp_path: Path) -> None:
    """Chinese comments saved on a GBK system, without a cookie: FSU902 says which cookie declares the file;
    with that cookie the file is checked like any other (and a byte GBK cannot read gets the general advice)."""
    text = "# NPU 补丁：同设备拷贝\n" + removable()
    (tmp_path / "patch_gbk.py").write_bytes(text.encode("gbk"))
    (tmp_path / "not_gbk.py").write_bytes(removable().encode() + b"# \xff\xfe\n")
    out = _check(tmp_path, "--output-format", "concise").stdout
    assert "patch_gbk.py:1:1: FSU902" in out and "add `# -*- coding: gbk -*-` as its first or second line" in out
    assert "not_gbk.py" in out and "declare the file's encoding with a PEP 263 comment" in out
    (tmp_path / "not_gbk.py").unlink()
    (tmp_path / "patch_gbk.py").write_bytes(("# -*- coding: gbk -*-\n" + text).encode("gbk"))
    out = _check(tmp_path, "--output-format", "concise").stdout
    assert "FSU902" not in out and "FSU001" in out
