"""CI and editor flags by their contract: exit codes, what is printed where, colour, stdin buffers, progress."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.run.progress import PROGRESS_MIN_ITEMS, show_progress, tracked
from tests.integration import CLEAN, PATCH, cli, make_project
from tests.upstream import expand

ANSI = b"\x1b["


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def test_exit_zero_exits_0_whatever_was_found_but_not_on_usage_errors(project: Path) -> None:
    plain = cli("check", cwd=project)
    zero = cli("check", "--exit-zero", cwd=project)
    assert plain.returncode == 1 and zero.returncode == 0
    findings = [line for line in plain.stdout.splitlines() if b"FSU" in line]
    assert findings and [line for line in zero.stdout.splitlines() if b"FSU" in line] == findings
    (project / "pkg" / "broken.py").write_text("import torch\ndef oops(:\ntorch.ops.fsdp.x = None\n")
    assert cli("check", cwd=project).returncode == 1  # a syntax error is a finding, as in ruff
    # like ruff: a file that does not parse is still reported, and the run still exits 0
    broken = cli("check", "--exit-zero", cwd=project)
    assert broken.returncode == 0 and b"pkg/broken.py:2:10: FSU901" in broken.stdout
    assert cli("fix", "--exit-zero", cwd=project).returncode == 0
    missing = cli("check", "--exit-zero", "pkg", "missing.py", cwd=project)
    assert missing.returncode == 0 and b"missing.py: no such file or directory" in missing.stderr
    # usage errors are not findings: still 2
    assert cli("check", "--exit-zero", "--select", "NOPE", cwd=project).returncode == 2
    assert cli("check", "--exit-zero", "missing.py", cwd=project).returncode == 2


def test_exit_non_zero_on_fix(project: Path, tmp_path: Path) -> None:
    # Nothing but keep findings remain after the fix: plain `fix` exits 0, the flag makes it 1.
    other = make_project(tmp_path / "other")
    assert cli("fix", cwd=other).returncode == 0
    result = cli("fix", "--exit-non-zero-on-fix", cwd=project)
    assert result.returncode == 1
    assert "_apply_fsdp_patch" not in (project / "pkg" / "patch.py").read_text()
    # and once there is nothing left to fix, it exits 0 again
    assert cli("fix", "--exit-non-zero-on-fix", cwd=project).returncode == 0


def test_quiet_prints_findings_and_nothing_else(project: Path) -> None:
    loud = cli("check", "--no-color", cwd=project).stdout.decode()
    quiet = cli("check", "--no-color", "--quiet", cwd=project).stdout.decode()
    assert "Found 4 findings" in loud and "Found" not in quiet
    assert [line for line in quiet.splitlines() if "FSU" in line] == [
        line for line in loud.splitlines() if "FSU" in line
    ]
    assert cli("check", "-q", cwd=project).returncode == 1
    fixed = cli("fix", "-q", "--no-color", "--show-kept", cwd=project)
    assert "Fixed" not in fixed.stdout.decode() and "FSU201" in fixed.stdout.decode()


def test_summary_counts_categories_fixes_and_time(project: Path) -> None:
    summary = cli("fix", "--no-color", cwd=project).stdout.decode().splitlines()[-1]
    assert summary.startswith("Found 1 finding (1 keep) in 4 files. Fixed 3, changed 1 file.")
    assert summary.endswith(" s.") and " Took " in summary


def test_show_fixes_in_check_previews_the_change(project: Path) -> None:
    plain = cli("check", "--no-color", "--no-show-source", cwd=project).stdout.decode()
    shown = cli("check", "--no-color", "--no-show-source", "--show-fixes", cwd=project).stdout.decode()
    assert "@@" not in plain
    after_install_site = shown.split("FSU001", 1)[1]
    assert "@@ line 2 @@" in after_install_site  # the import only the override used
    assert "    -     C._get_param_all_gather_inputs = _patched_inputs" in after_install_site
    assert "    +     pass" in after_install_site  # the installer's body cannot be empty


def test_show_fixes_in_fix_enumerates_what_was_fixed(project: Path) -> None:
    result = cli("fix", "--no-color", "--show-fixes", cwd=project).stdout.decode()
    assert "Fixed 3 findings:\npkg/patch.py:\n    1 x FSU001\n    1 x FSU002\n    1 x FSU003\n" in result
    assert "Fixed 0 findings." in cli("fix", "--no-color", "--show-fixes", cwd=project).stdout.decode()


def test_show_source_and_no_show_source(project: Path) -> None:
    shown = cli("check", "--no-color", cwd=project).stdout.decode()
    hidden = cli("check", "--no-color", "--no-show-source", cwd=project).stdout.decode()
    assert "| def _apply_fsdp_patch():" not in hidden
    assert "  58 | def _apply_fsdp_patch():" in shown
    assert [line for line in hidden.splitlines() if "FSU" in line] == [
        line for line in shown.splitlines() if "FSU" in line
    ]


def run_in_terminal(args: list[str], cwd: Path, env: dict) -> bytes:
    """Run the CLI with stdout and stderr on a pseudo-terminal and return everything it printed."""
    primary, secondary = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CI")}
    environment.update(env)
    process = subprocess.Popen(
        [sys.executable, "-m", "fsdp_unpatch", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=secondary,
        env=environment,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait()
    os.close(primary)
    return b"".join(chunks)


def test_colour_at_a_terminal_unless_no_color(project: Path) -> None:
    assert ANSI in run_in_terminal(["check"], project, {})
    assert ANSI not in run_in_terminal(["check", "--no-color"], project, {})
    assert ANSI not in run_in_terminal(["check"], project, {"NO_COLOR": "1"})
    assert ANSI not in cli("check", cwd=project).stdout  # a pipe


def test_progress_bar_only_for_long_runs_at_a_terminal_outside_ci(tmp_path: Path) -> None:
    for i in range(50):
        (tmp_path / f"m{i}.py").write_text(CLEAN)
    now = {"FSDP_UNPATCH_PROGRESS_AFTER": "0"}  # as if the run had already taken its second
    at_terminal = run_in_terminal(["check"], tmp_path, now)
    assert b"Scanning" in at_terminal
    assert b"Scanning" not in run_in_terminal(["check"], tmp_path, {})  # a quick run: no flicker
    assert b"Scanning" not in run_in_terminal(["check"], tmp_path, {**now, "CI": "true"})
    assert b"Scanning" not in run_in_terminal(["check", "--quiet"], tmp_path, now)
    assert b"Scanning" not in run_in_terminal(["check", "--output-format", "json"], tmp_path, now)
    assert b"Scanning" not in cli("check", cwd=tmp_path).stderr


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_show_progress_decision() -> None:
    many = PROGRESS_MIN_ITEMS
    assert show_progress(_Stream(True), {}, False, False, many)
    assert not show_progress(_Stream(True), {}, False, False, many - 1)
    assert not show_progress(_Stream(False), {}, False, False, many)
    assert not show_progress(_Stream(True), {"CI": "true"}, False, False, many)
    assert not show_progress(_Stream(True), {}, True, False, many)  # sarif, json, ...
    assert not show_progress(_Stream(True), {}, False, True, many)  # --quiet


def test_the_bar_appears_only_once_the_work_has_taken_its_time() -> None:
    """Issue 31 item 8: a run over many files that takes more than a second shows a bar; a quick one never
    flickers one."""
    import io

    from rich.console import Console

    def drawn(after: float) -> str:
        screen = io.StringIO()
        console = Console(file=screen, force_terminal=True, width=80)
        assert list(tracked(list(range(5)), after=after, console=console)) == list(range(5))
        return screen.getvalue()

    assert "Scanning" in drawn(0.0)  # past its time from the start: drawn, then cleared (transient)
    assert drawn(60.0) == ""  # a quick run: nothing written at all


def test_check_from_stdin_uses_the_given_name(project: Path) -> None:
    buffer = expand(PATCH).encode()
    result = cli("check", "--output-format", "json", "--stdin-filename", "pkg/patch.py", "-", cwd=project, stdin=buffer)
    assert result.returncode == 1, result.stderr
    from_stdin = json.loads(result.stdout)
    from_disk = json.loads(cli("check", "--output-format", "json", "pkg/patch.py", cwd=project).stdout)
    # A buffer with no project root above it cannot be searched for importers, so `fix --stdin-filename` would
    # hold back the fixes that unbind names (docs/safety.md) and check says so; on disk, the run is the project.
    held = {f["fix"].pop("held_back") for f in from_stdin if f["fix"]}
    assert {f["fix"].pop("held_back") for f in from_disk if f["fix"]} == {None}
    assert len(held) == 1 and next(iter(held)).startswith("no project root (pyproject.toml or .git) above pkg/patch.py")
    assert from_stdin == from_disk and {f["path"] for f in from_stdin} == {"pkg/patch.py"}


def test_fix_from_stdin_writes_the_fixed_buffer_and_touches_no_file(project: Path, tmp_path: Path) -> None:
    # A project root to search for importers of what the fix removes (docs/safety.md: without one, a buffer
    # gets only fixes that unbind no name).
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    target = project / "pkg" / "patch.py"
    buffer = target.read_bytes()
    result = cli("fix", "--stdin-filename", "pkg/patch.py", "-", cwd=project, stdin=buffer)
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == buffer  # the file on disk is not the editor's buffer: left alone
    reference = make_project(tmp_path / "reference")
    (reference / "pyproject.toml").write_text('[project]\nname = "reference"\n')  # a project of its own
    assert cli("fix", "pkg/patch.py", cwd=reference).returncode == 0
    assert result.stdout == (reference / "pkg" / "patch.py").read_bytes()
    assert b"Fixed 3" in result.stderr


def test_fix_from_stdin_echoes_a_clean_buffer_byte_for_byte(project: Path) -> None:
    buffer = b"# -*- coding: latin-1 -*-\r\nname = '\xe9t\xe9'  # fsdp\r\n"
    result = cli("fix", "--stdin-filename", "pkg/other.py", "-", cwd=project, stdin=buffer)
    assert result.returncode == 0 and result.stdout == buffer


def test_force_exclude_skips_named_files_a_walk_would_skip(project: Path) -> None:
    hidden = project / "build" / "patch.py"
    hidden.parent.mkdir()
    hidden.write_text(expand(PATCH))
    assert cli("check", "build/patch.py", cwd=project).returncode == 1
    excluded = cli("check", "--force-exclude", "-q", "build/patch.py", cwd=project)
    assert excluded.returncode == 0 and b"FSU" not in excluded.stdout
    buffer = hidden.read_bytes()
    echoed = cli("fix", "--force-exclude", "--stdin-filename", "build/patch.py", "-", cwd=project, stdin=buffer)
    assert echoed.returncode == 0 and echoed.stdout == buffer


def test_stdin_buffer_follows_the_configured_excludes_of_its_name(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nextend-exclude = ["generated/"]\n')
    buffer = (project / "pkg" / "patch.py").read_bytes()
    excluded = cli("fix", "--force-exclude", "--stdin-filename", "generated/patch.py", "-", cwd=project, stdin=buffer)
    assert excluded.returncode == 0 and excluded.stdout == buffer
    checked = cli("check", "--force-exclude", "--stdin-filename", "src/patch.py", "-", cwd=project, stdin=buffer)
    assert checked.returncode == 1 and b"src/patch.py:" in checked.stdout


def test_stdin_usage_errors(project: Path) -> None:
    assert cli("check", "-", "pkg", cwd=project).returncode == 2
    assert cli("check", "--stdin-filename", "x.py", "pkg", cwd=project).returncode == 2


def test_stdin_filename_alone_reads_standard_input(project: Path) -> None:
    """As in ruff: `--stdin-filename NAME` with no path reads the buffer from standard input."""
    buffer = expand(PATCH).encode()
    alone = cli("check", "--output-format", "json", "--stdin-filename", "pkg/patch.py", cwd=project, stdin=buffer)
    dashed = cli("check", "--output-format", "json", "--stdin-filename", "pkg/patch.py", "-", cwd=project, stdin=buffer)
    assert alone.returncode == 1, alone.stderr
    assert json.loads(alone.stdout) == json.loads(dashed.stdout) != []


def test_audit_shows_the_bar_too_at_a_terminal(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"m{i}.py").write_text("import torch\n\ntorch._foreach_copy_([], [])\n")
    now = {"FSDP_UNPATCH_PROGRESS_AFTER": "0"}
    assert b"Scanning" in run_in_terminal(["audit", "foreach-copy"], tmp_path, now)
    assert b"Scanning" not in run_in_terminal(["audit", "foreach-copy", "--output-format", "json"], tmp_path, now)
    assert b"Scanning" not in run_in_terminal(["audit", "foreach-copy"], tmp_path, {**now, "CI": "true"})
