"""`fix --diff --report` on a real release (torch-npu 2.10.0.post7, fetched as the other real-release tests
fetch it): the description names what `check` found there and the files `fix --diff` changes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.reporting import merge_request_text as t
from tests.realworld.packages import working_copy
from tests.realworld.test_releases import _fetch
from tests.test_merge_request import _sections
from tests.test_merge_request_template import _ascend, _numbered, _rows

pytestmark = pytest.mark.slow

RELEASE = "2.10.0.post7"


def say(message: str) -> str:
    """`message` in Chinese, as the description says it under `--lang zh-CN`."""
    from fsdp_unpatch import i18n

    before = i18n.language()
    i18n.set_language(i18n.CHINESE)
    try:
        return t.say(message)
    finally:
        i18n.set_language(before)


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True)


# release -> `check --output-format json` of a fresh working copy of it: two tests of each release ask for the
# same check of the same files (the release's extracted sources do not change during a session), made once per
# process; the file's tests run on one worker (tests/scheduling.py).
_CHECKED: dict[str, subprocess.CompletedProcess] = {}


def _checked(version: str, repo: Path) -> subprocess.CompletedProcess:
    """`check --no-cache --output-format json .` of `repo`, a fresh `working_copy` of `version`."""
    if version not in _CHECKED:
        _CHECKED[version] = _cli(repo, "check", "--no-cache", "--output-format", "json", ".")
    return _CHECKED[version]


def test_the_description_of_a_real_release_follows_its_findings(tmp_path: Path) -> None:
    _fetch(RELEASE)
    repo = working_copy(RELEASE, tmp_path / "repo")
    checked = _checked(RELEASE, repo)
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
    findings = json.loads(_checked(RELEASE, repo).stdout)
    report = tmp_path / "mr.md"
    preview = _cli(
        repo, "fix", "--diff", "--no-cache", "--lang", "zh-CN", "--template", "plain", "--report", str(report), "."
    )
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
    kept bullets, and the kept count said so; each removal carries its proof, in both languages, stated against
    the release the run targets (torch 2.9, from `torch_npu/version.py`): the copies are the body of 2.9.1 too,
    which the proof names, not the newest release with the same body (2.11.0, 2.12.1, 2.13.0 before). English
    writes the plain sections, Chinese the Ascend ones (its default), with the `_foreach_copy_` audit table."""
    _fetch("2.9.1")
    repo = working_copy("2.9.1", tmp_path / "repo")
    findings = json.loads(_checked("2.9.1", repo).stdout)
    sites = {(f["path"], f["line"], f["target"]) for f in findings if f["category"] == "keep"}
    assert len(sites) < sum(1 for f in findings if f["category"] == "keep")  # the release has the double finding
    report = tmp_path / "mr.md"
    preview = _cli(repo, "fix", "--diff", "--no-cache", "--lang", lang, "--report", str(report), ".")
    assert preview.returncode == 1, preview.stderr
    text = report.read_text(encoding="utf-8")
    overrides = [f for f in findings if f["code"] == "FSU001"]
    if lang == "en":
        sections = _sections(text)
        for heading, lines in sections.items():
            assert len(lines) == len(set(lines)), heading
        kept = sections["Kept on purpose"]
        assert f"- Patches kept on purpose: {len(sites)}" in text.splitlines()  # the summary's kept count
        removed = sections["Removed overrides"]
        assert "Target torch: 2.9 (torch_npu/version.py: torch-npu 2.9.1)" in sections["Summary"]
    else:
        ascend = _ascend(text)
        assert list(ascend) == list(t.ASCEND_HEADINGS)  # the Ascend sections, in order, each once
        items = _numbered(ascend[t.ASCEND_CHANGE])
        for item, bullets in items:
            assert len(bullets) == len(set(bullets)), item
        removed = items[0][1]
        kept = next(bullets for item, bullets in items if item.startswith("逐字节保留"))
        assert f"增强补丁仍然安装（保留了 {len(sites)} 个补丁）。" in "\n".join(ascend[t.ASCEND_VERIFY])
        assert ascend[t.ASCEND_CHECKLIST][0] == f"- [x] {say(t.A_CHECK_PROOF)}"
        # the audit table: `audit foreach-copy`'s rows of the release, the patched copies' calls removed
        audited = _rows(_cli(repo, "audit", "foreach-copy", ".").stdout.decode())
        table = _rows(text)
        assert [row[0] for row in table] == [row[0] for row in audited] and len(table) >= 5
        replaced = {re.match(r"`(\w+)`", f["message"])[1] for f in findings if f["code"] == "FSU002"}
        gone = ["删除" if row[0].split("` `", 1)[1].split("`")[0] in replaced else "保留" for row in audited]
        assert [row[5] for row in table] == gone and "保留" in gone and "删除" in gone
    assert len(kept) == len(sites)
    assert sorted(line.split("`")[3] for line in kept) == sorted(f"{path}:{line}" for path, line, _ in sites)
    assert [line.split("`")[1] for line in removed] == [f["target"] for f in overrides]
    for line in removed:
        proof = line.split("：", 1)[1] if lang == "zh-CN" else line.split("`: ", 1)[1]
        assert proof.startswith("`_patched_") and "..." not in proof, line
        assert re.match(r"`_patched_\w+` (matches torch|与 torch) 2\.9\.\d+ ", proof), line  # the target's release
