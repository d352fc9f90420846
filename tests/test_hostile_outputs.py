"""Hostile names, reports that cannot be written, special files and the newest syntax (issue 25, items 7 and 8).

Each test drives the real command line in a subprocess, with a bounded time: a hang is a failure, not a wait.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

from tests.patch_texts import cli, removable

TAIL = "\n\ndef helper():\n    return 1\n"
# A folder name that, printed raw, makes the next diff line `+++ b/victim.py`: a header for another file.
INJECTING = "pkg\n+++ b"


def _hostile_tree(root: Path, folder: str) -> Path:
    """A project whose only patch lives in a folder with a hostile name, and a victim file beside it."""
    (root / folder).mkdir(parents=True)
    patched = root / folder / "victim.py"
    patched.write_text(removable() + TAIL)
    (root / "victim.py").write_text("VALUE = 1\n")
    return patched


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to apply the diff")
def test_diff_quotes_a_folder_name_with_a_newline_and_git_applies_it_to_that_file(tmp_path: Path) -> None:
    patched = _hostile_tree(tmp_path, INJECTING)
    shown = cli("fix", "--diff", ".", cwd=tmp_path)
    assert shown.returncode == 1, shown.stderr.decode()
    diff = shown.stdout
    assert diff.startswith(b'diff --git "a/pkg\\n+++ b/victim.py" "b/pkg\\n+++ b/victim.py"\n'), diff[:200]
    assert b"\n+++ b/victim.py\n" not in diff  # no line names the victim
    applied = subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=diff, capture_output=True, timeout=60)
    assert applied.returncode == 0, applied.stderr.decode()
    assert (tmp_path / "victim.py").read_text() == "VALUE = 1\n"
    assert patched.read_text() == TAIL


@pytest.mark.parametrize("output_format", ["concise", "full", "grouped", "pylint"])
def test_line_formats_quote_control_characters_in_paths(tmp_path: Path, output_format: str) -> None:
    _hostile_tree(tmp_path, "a\tb\x1b[31m\x7f")
    shown = cli("check", "--output-format", output_format, ".", cwd=tmp_path)
    out = shown.stdout.decode()
    assert shown.returncode == 1, out
    assert "\x1b" not in out and "\x7f" not in out and "\t" not in out
    assert '"a\\tb\\033[31m\\177/victim.py"' in out


def test_show_files_prints_one_name_a_line(tmp_path: Path) -> None:
    _hostile_tree(tmp_path, INJECTING)
    shown = cli("check", "--show-files", ".", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr.decode()
    assert shown.stdout.decode().splitlines() == ['"pkg\\n+++ b/victim.py"', "victim.py"]


def test_junit_is_valid_xml_whatever_a_path_holds(tmp_path: Path) -> None:
    _hostile_tree(tmp_path, "odd\x01\x1b\x0bname")
    shown = cli("check", "--output-format", "junit", ".", cwd=tmp_path)
    assert shown.returncode == 1, shown.stderr.decode()
    document = xml.dom.minidom.parseString(shown.stdout)  # raises on a character XML 1.0 forbids
    suites = [s.getAttribute("name") for s in document.getElementsByTagName("testsuite")]
    assert "odd\\001\\033\\vname/victim.py" in suites


def test_markdown_escapes_link_text_and_table_cells(tmp_path: Path) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    _hostile_tree(tmp_path, "x](https:evil.example)<b>*")
    shown = cli("check", "--output-format", "markdown", ".", cwd=tmp_path)
    assert shown.returncode == 1, shown.stderr.decode()
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(shown.stdout.decode())
    assert "https:evil.example" not in html.replace("https:evil.example)&lt;b&gt;*/victim.py", "")
    assert "<b>" not in html and "<em>" not in html
    assert 'href="x%5D%28https%3Aevil.example%29%3Cb%3E%2A/victim.py#L' in html
    rows = [line for line in shown.stdout.decode().splitlines() if "victim.py" in line]
    assert rows and all(line.count(" | ") == 4 for line in rows)  # five cells, no pipe from the name


def _project(tmp_path: Path) -> tuple[Path, str]:
    target = tmp_path / "patched.py"
    target.write_text(removable() + TAIL)
    return target, removable() + TAIL


@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_report_to_a_full_disk_exits_2_with_one_line(tmp_path: Path, command: str) -> None:
    target, before = _project(tmp_path)
    with open("/dev/full", "wb") as full:
        run = subprocess.run(
            [sys.executable, "-m", "fsdp_unpatch", command, "--isolated", "--no-cache", "."],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    err = run.stderr.decode()
    assert run.returncode == 2, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("fsdp-unpatch: error: cannot write the report to standard output: No space left on device")
    if command == "fix":  # the files were written before the report failed: said so
        assert "the fixes were written (1 file changed)" in err
        assert target.read_text() == TAIL
    else:
        assert target.read_text() == before


def test_fix_with_stdout_closed_refuses_before_touching_a_file(tmp_path: Path) -> None:
    target, before = _project(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.close(1); from fsdp_unpatch.cli import main; sys.exit(main())"]
        + ["fix", "--isolated", "--no-cache", "."],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    err = run.stderr.decode()
    assert run.returncode == 2, err
    assert "Traceback" not in err and err.startswith("fsdp-unpatch: error: standard output is closed"), err
    assert target.read_text() == before


@pytest.mark.parametrize("where", ["missing/report.txt", "read-only/report.txt"])
def test_fix_with_an_unwritable_output_file_touches_nothing(tmp_path: Path, where: str) -> None:
    if "read-only" in where and os.geteuid() == 0:
        pytest.skip("root writes in a read-only folder")
    target, before = _project(tmp_path)
    (tmp_path / "read-only").mkdir(mode=0o500)
    run = cli("fix", "--output-file", str(tmp_path / where), ".", cwd=tmp_path)
    err = run.stderr.decode()
    assert run.returncode == 2 and "Traceback" not in err and err.startswith("fsdp-unpatch: error: --output-file")
    assert target.read_text() == before


def test_a_replacement_in_syntax_this_python_cannot_compile_is_one_finding(tmp_path: Path) -> None:
    """PEP 695 type parameters and a PEP 701 f-string in a replacement whose body is compared with upstream:
    libcst reads it; CPython's `ast` (before 3.12) does not. The run reports and goes on, nothing removed."""
    text = removable().replace("def _patched_inputs(", "def _patched_inputs[T](", 1)
    text = text.replace("\n    return ", '\n    note = f"{f"{len(fsdp_params)}"}"\n    return ', 1)
    assert text.count("[T](") == 1 and "note = " in text
    target = tmp_path / "patched.py"
    target.write_text(text + TAIL)
    for command in ("check", "fix"):
        run = cli(command, "--output-format", "concise", ".", cwd=tmp_path)
        out, err = run.stdout.decode(), run.stderr.decode()
        assert "Traceback" not in err, err
        assert run.returncode == 1, out + err
        assert "FSU101" in out
        if sys.version_info < (3, 12):  # no model of the module: no site of it is judged
            assert "syntax Python 3.1" in out and "cannot parse" in out
        else:
            assert "`_patched_inputs` differs" in out
        assert target.read_text() == text + TAIL  # unproven: never removed


def _cached_run(tmp_path: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", args[0], "--isolated", *args[1:]],
        cwd=tmp_path / "project",
        env=environment,
        capture_output=True,
        timeout=timeout,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("command", ["check", "fix"])
def test_fifos_in_the_cache_folder_never_hang_a_run(tmp_path: Path, command: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "patched.py"
    target.write_text(removable() + TAIL)
    assert _cached_run(tmp_path, "check", ".").returncode == 1
    cache = project / ".fsdp_unpatch_cache"
    entries = [p for p in (cache / "entries").glob("*/*")]
    assert entries
    for special in [*entries, cache / "removed.json", cache / "removed.lock", tmp_path / "xdg/fsdp-unpatch/secret"]:
        if special.exists():
            special.unlink()
        os.mkfifo(special)
    run = _cached_run(tmp_path, command, ".")  # before: blocked in open(), deaf to SIGTERM, until the timeout
    assert run.returncode == (1 if command == "check" else 0), run.stderr.decode()
    assert "Traceback" not in run.stderr.decode()
    assert target.read_text() == (TAIL if command == "fix" else removable() + TAIL)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("name", [".gitignore", "pyproject.toml"])
def test_a_fifo_in_the_tree_in_place_of_a_settings_file_never_hangs_a_run(tmp_path: Path, name: str) -> None:
    (tmp_path / "patched.py").write_text(removable() + TAIL)
    os.mkfifo(tmp_path / name)
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--no-cache", "."],
        cwd=tmp_path,
        capture_output=True,
        timeout=30,
    )
    assert "Traceback" not in run.stderr.decode()
    assert run.returncode in (1, 2), run.stderr.decode()  # findings, or the configuration named as unreadable


def test_junit_text_keeps_a_finding_on_one_line(tmp_path: Path) -> None:
    """The text of a failure was the path and message raw (only what XML forbids escaped): a newline in a folder
    name put `::error ...` at the start of a line of the report, read as a command by a CI runner that shows it."""
    _hostile_tree(tmp_path, "pkg\n::error file=victim.py::pwned")
    shown = cli("check", "--output-format", "junit", ".", cwd=tmp_path)
    assert shown.returncode == 1, shown.stderr.decode()
    document = xml.dom.minidom.parseString(shown.stdout)
    [failure, *_] = document.getElementsByTagName("failure")
    text = failure.firstChild.data
    assert "\n" not in text.strip() and text.startswith('"pkg\\n::error file=victim.py::pwned/victim.py":'), text
    assert not [line for line in shown.stdout.decode().splitlines() if line.lstrip().startswith("::")]


def test_github_annotations_escape_every_control_character(tmp_path: Path) -> None:
    """CR, LF and `%` were escaped as the runner's toolkit does, but an ESC reached the log raw (colours,
    cursor moves in a terminal)."""
    _hostile_tree(tmp_path, "a\x1b[2Kb\x7f")
    shown = cli("check", "--output-format", "github", ".", cwd=tmp_path)
    out = shown.stdout.decode()
    assert shown.returncode == 1, out
    assert "\x1b" not in out and "\x7f" not in out
    assert "file=a\\033[2Kb\\177/victim.py," in out
