"""The real flake8, in a subprocess, reports what `fsdp-unpatch check` reports: same codes, same 1-based positions."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.integration import cli, make_project

LINE = re.compile(r"(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>FSU\d{3}) (?P<message>.*)")


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True)


def test_flake8_reports_the_same_findings_as_check(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    # single-file semantics: compare file by file, as flake8 sees them
    expected = []
    for name in ("patch.py", "enhance.py", "clean.py"):
        result = cli("check", "--output-format", "json", f"pkg/{name}", cwd=project)
        expected += [(f["path"], f["line"], f["column"], f["code"], f["message"]) for f in json.loads(result.stdout)]
    result = flake8("--select", "FSU", "pkg/patch.py", "pkg/enhance.py", "pkg/clean.py", cwd=project)
    assert result.returncode == 1, result.stderr
    reported = [LINE.fullmatch(line) for line in result.stdout.splitlines()]
    assert all(reported), result.stdout
    found = [(m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in reported]
    assert sorted(found) == sorted(expected)
    assert {code for *_, code, _ in found} == {"FSU001", "FSU002", "FSU003", "FSU201"}


def test_flake8_columns_are_one_based(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = flake8("--select", "FSU001", "pkg/patch.py", cwd=project)
    (line,) = result.stdout.splitlines()
    match = LINE.fullmatch(line)
    assert match is not None
    source_line = (project / "pkg" / "patch.py").read_text().splitlines()[int(match["line"]) - 1]
    # the install site is indented by four spaces inside the installer: it starts in column 5
    assert source_line[int(match["col"]) - 1:].startswith("C._get_param_all_gather_inputs = ")


def test_flake8_ignore_and_clean_files(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = flake8("--select", "FSU", "--extend-ignore", "FSU0", "pkg", cwd=project)
    assert result.returncode == 1 and "FSU201" in result.stdout and "FSU00" not in result.stdout
    assert flake8("--select", "FSU", "pkg/clean.py", cwd=project).returncode == 0
