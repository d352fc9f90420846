"""Real torch-npu releases read in Chinese (issue 24, item 1): every finding `check` reports on a release
is translated, none left with English prose, and the findings are the same ones as in English."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.realworld.test_releases import _fetch

pytestmark = pytest.mark.slow

# a patched release of each shape (2.7 and 2.10 copies of the patch) and a hand-migrated one
RELEASES = ("2.7.1.post11", "2.10.0.post7", "2.14.0")
FINDING = re.compile(r"^(?P<where>\S+:\d+:\d+: FSU\d+ \[\w+\]) (?P<message>.*)$")


def _concise(cwd: Path, language: str) -> list[tuple[str, str]]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fsdp_unpatch",
            "check",
            "--no-cache",
            "--show-kept",
            "--output-format",
            "concise",
            "torch_npu",
        ],
        cwd=cwd,
        env={**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": language, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    return [(m["where"], m["message"]) for m in map(FINDING.match, done.stdout.splitlines()) if m]


@pytest.mark.parametrize("version", RELEASES)
def test_every_finding_of_a_release_reads_in_chinese(version: str, tmp_path: Path) -> None:
    shutil.copytree(_fetch(version) / "torch_npu", tmp_path / "torch_npu")
    english = _concise(tmp_path, "C.UTF-8")
    chinese = _concise(tmp_path, "zh_CN.UTF-8")
    assert english and [where for where, _ in chinese] == [where for where, _ in english]
    left = [
        message
        for _, message in chinese
        if not re.search("[\u4e00-\u9fff]", message)
        or re.search(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}", re.sub(r"`[^`]*`", "", message))
    ]
    assert left == []
