"""`fix --diff --report` on a real release (torch-npu 2.10.0.post7, fetched as the other real-release tests
fetch it): the description names what `check` found there and the files `fix --diff` changes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.realworld.packages import working_copy
from tests.realworld.test_releases import _fetch
from tests.test_merge_request import _sections

pytestmark = pytest.mark.slow

RELEASE = "2.10.0.post7"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True)


def test_the_description_of_a_real_release_follows_its_findings(tmp_path: Path) -> None:
    _fetch(RELEASE)
    repo = working_copy(RELEASE, tmp_path / "repo")
    checked = _cli(repo, "check", "--no-cache", "--output-format", "json", ".")
    assert checked.returncode == 1, checked.stderr
    findings = json.loads(checked.stdout)
    report = tmp_path / "mr.md"
    preview = _cli(repo, "fix", "--diff", "--no-cache", "--report", str(report), ".")
    assert preview.returncode == 1, preview.stderr
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""
    sections = _sections(report.read_text(encoding="utf-8"))

    overrides = [f for f in findings if f["code"] == "FSU001"]
    assert overrides  # the release ships the collectives patch
    assert [line.split("` at `")[0].strip("`") for line in sections["Removed overrides"]] == [
        f["target"] for f in overrides
    ]
    replaced = {re.match(r"`(\w+)`", f["message"])[1] for f in findings if f["code"] == "FSU002"}
    for line in sections["Removed overrides"]:  # each proof: a replacement check proved, against a torch release
        proof = re.search(r"`: `(\w+)` matches torch \d+\.\d+\.\d+ `\w+` up to: ", line)
        assert proof and proof[1] in replaced, line
    kept = list(dict.fromkeys((f["path"], f["line"], f["target"]) for f in findings if f["category"] == "keep"))
    assert [line.split("` at `")[1].split("`")[0] for line in sections["Kept on purpose"]] == [
        f"{path}:{line}" for path, line, _ in kept
    ]
    left = [f for f in findings if f["category"] in ("review", "error")]
    assert len(sections["Left for review"]) == len(left)
    diffed = [
        line.split(" b/", 1)[1] for line in preview.stdout.decode().splitlines() if line.startswith("diff --git ")
    ]
    assert sections["Files changed"] == [f"`{path}`" for path in diffed]
    assert f"Target torch: 2.10 (torch_npu/version.py: torch-npu {RELEASE})" in sections["Summary"]


def test_the_description_of_a_real_release_in_chinese(tmp_path: Path) -> None:
    _fetch(RELEASE)
    repo = working_copy(RELEASE, tmp_path / "repo")
    findings = json.loads(_cli(repo, "check", "--no-cache", "--output-format", "json", ".").stdout)
    report = tmp_path / "mr.md"
    preview = _cli(repo, "fix", "--diff", "--no-cache", "--lang", "zh-CN", "--report", str(report), ".")
    assert preview.returncode == 1, preview.stderr
    sections = _sections(report.read_text(encoding="utf-8"))
    removed = sections["已删除的覆写"]
    assert [line.split("`")[1] for line in removed] == [f["target"] for f in findings if f["code"] == "FSU001"]
    for line in removed:  # each proof said in Chinese, against a torch release
        assert re.search(r"与 torch \d+\.\d+\.\d+ 的 `\w+` 一致，差异仅为：", line), line
    kept = {(f["path"], f["line"], f["target"]) for f in findings if f["category"] == "keep"}
    assert len(sections["有意保留"]) == len(kept)  # one bullet an install site (FSU201 and FSU402 on one line)
    assert f"目标 torch：2.10（torch_npu/version.py: torch-npu {RELEASE}）" in sections["概要"]


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_torch_npu_2_9_1_lists_each_finding_once_with_its_proof(tmp_path: Path, lang: str) -> None:
    """Issue 31, item 2: on 2.9.1, FSU201 and FSU402 on one install site (`DefaultAllGather.allocate`) were two
    kept bullets, and the kept count said so; each removal carries its proof, in both languages."""
    _fetch("2.9.1")
    repo = working_copy("2.9.1", tmp_path / "repo")
    findings = json.loads(_cli(repo, "check", "--no-cache", "--output-format", "json", ".").stdout)
    sites = {(f["path"], f["line"], f["target"]) for f in findings if f["category"] == "keep"}
    assert len(sites) < sum(1 for f in findings if f["category"] == "keep")  # the release has the double finding
    report = tmp_path / "mr.md"
    _cli(repo, "fix", "--diff", "--no-cache", "--lang", lang, "--report", str(report), ".")
    text = report.read_text(encoding="utf-8")
    sections = _sections(text)
    for heading, lines in sections.items():
        assert len(lines) == len(set(lines)), heading
    kept = next(lines for heading, lines in sections.items() if heading in ("Kept on purpose", "有意保留"))
    assert len(kept) == len(sites)
    assert re.search(rf"^- [^\n]*{len(sites)}$", text, re.MULTILINE)  # the summary's kept count
    removed = next(lines for heading, lines in sections.items() if heading.startswith(("Removed overrides", "已删除")))
    overrides = [f for f in findings if f["code"] == "FSU001"]
    assert len(removed) == len(overrides) > 0
    for line in removed:
        proof = line.split("：", 1)[1] if lang == "zh-CN" else line.split("`: ", 1)[1]
        assert proof.startswith("`_patched_") and "..." not in proof, line
