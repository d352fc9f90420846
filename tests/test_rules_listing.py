"""`fsdp-unpatch rules` in a pipe (`rules | cat`) shows every code, name and target whole: `explain` takes
them back, so a cut name (`same-device-foreach-co`) would be one it rejects."""

from __future__ import annotations

import subprocess
import sys

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.rules.registry import all_rules


def _listing(*flags: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "rules", *flags], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def _cells(text: str) -> set[str]:
    return {cell.strip() for line in text.splitlines() for cell in line.split("│")}


def test_every_rule_name_is_whole_in_a_pipe() -> None:
    cells = _cells(_listing())
    missing = [r.name for r in all_rules().values() if r.name not in cells]
    assert missing == []


def test_every_target_is_whole_in_a_pipe() -> None:
    cells = _cells(_listing("--targets"))
    missing = [t for t in load_catalog().targets if t not in cells]
    assert missing == []
