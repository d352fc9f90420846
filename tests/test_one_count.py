"""One count (issue 31, item 3): with the fixes of a group held back, every format and output says so, and none
counts them as fixable: the text summary, JSON, markdown, SARIF, the GitHub annotations and the Action's
outputs. Each count is read off its own format and compared with what `fix` then does (nothing)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.integration import cli
from tests.test_action_check_step import _check_step
from tests.test_fixable_count import _example, _re_exported


def _run(project: Path, fmt: str) -> str:
    return cli("check", "--no-cache", "--no-color", "--output-format", fmt, ".", cwd=project).stdout.decode()


def test_a_held_back_fix_is_held_back_in_every_format(tmp_path: Path) -> None:
    project = _re_exported(_example(tmp_path))
    findings = json.loads(_run(project, "json"))
    held = [f for f in findings if f["fix"] and f["fix"]["held_back"]]
    assert len(held) == 9  # the example's nine safe fixes, all in the group the import net holds back

    text = _run(project, "full")
    assert "9 fixes held back" in text and "fixable with" not in text

    markdown = _run(project, "markdown")
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| category |"))
    columns = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = lines[start + 2 : lines.index("", start)]  # the summary table, up to the blank line after it
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    assert sum(int(row[columns.index("fixable")]) for row in cells) == 0, markdown
    assert sum(int(row[columns.index("held back")]) for row in cells) == 9, markdown
    assert "safe fixes: `fsdp-unpatch fix`" not in markdown

    sarif = json.loads(_run(project, "sarif"))
    results = sarif["runs"][0]["results"]
    assert sum(1 for r in results if r["properties"].get("fix") == "held back") == 9
    assert not [r for r in results if r["properties"].get("fix") == "safe"]

    github = _run(project, "github").splitlines()
    assert sum(1 for line in github if "(fix held back: " in line) == 9

    temp = tmp_path / "runner-temp"
    temp.mkdir()
    _, outputs = _check_step(project, temp, ".", "held")
    assert outputs["fixable"] == "0" and outputs["held-back"] == "9", outputs


def test_without_a_hold_every_format_counts_the_same_fixable(tmp_path: Path) -> None:
    project = _example(tmp_path)
    text = _run(project, "full")
    fixable = int(re.search(r"(\d+) fixable with `fsdp-unpatch fix`", text)[1])
    markdown = _run(project, "markdown")
    assert f"- {fixable} safe fixes: `fsdp-unpatch fix`" in markdown
    sarif = json.loads(_run(project, "sarif"))["runs"][0]["results"]
    assert sum(1 for r in sarif if r["properties"].get("fix") == "safe") == fixable
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    _, outputs = _check_step(project, temp, ".", "plain")
    assert outputs["fixable"] == str(fixable) and outputs["held-back"] == "0", outputs
