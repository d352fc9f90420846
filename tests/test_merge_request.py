"""`fix --report FILE.md` (issue 24, item 3): the merge request's description, on the bundled example.

What the description must say is read off `check`'s JSON report of the same tree before the fix and off
the files the fix changed, not off the description's own code: the overrides `check` says are removable
(FSU001) with their replacement's proof, every other removal, every kept patch, what is left, the files.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.reporting import merge_request_text
from tests.integration import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"


def _copy(root: Path) -> Path:
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return project


def _sections(text: str) -> dict[str, list[str]]:
    """`## heading` -> its bullet lines (`### ` subsections are sections of their own)."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## ") or line.startswith("### "):
            current = line.lstrip("#").strip()
            sections[current] = []
        elif line.startswith("- ") and current:
            sections[current].append(line[2:])
    return sections


def _snapshot(project: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """(check's findings before, the description, the files the fix changed) for the example."""
    project = _copy(tmp_path_factory.mktemp("mr"))
    findings = json.loads(cli("check", "--no-cache", "--output-format", "json", ".", cwd=project).stdout)
    before = _snapshot(project)
    done = cli("fix", "--no-cache", "--report", "mr.md", ".", cwd=project)
    assert done.returncode == 0, done.stderr
    text = (project / "mr.md").read_text(encoding="utf-8")
    after = _snapshot(project)
    changed = sorted(str(p.relative_to(project)) for p in before if before[p] != after.get(p) and p.name != "mr.md")
    now = json.loads(cli("check", "--no-cache", "--output-format", "json", ".", cwd=project).stdout)
    return findings, text, changed, now


def test_the_removed_overrides_are_the_ones_check_proved(migrated) -> None:
    findings, text, _, _ = migrated
    removed = _sections(text)["Removed overrides"]
    overrides = [f for f in findings if f["code"] == "FSU001"]
    assert len(removed) == len(overrides) == 4
    replaced = {re.match(r"`(\w+)`", f["message"])[1] for f in findings if f["code"] == "FSU002"}
    for line, finding in zip(removed, overrides):
        assert line.startswith(f"`{finding['target']}` at `{finding['path']}:{finding['line']}`: ")
        # the one-line proof: the replacement it installed matches upstream up to the NPU tweak
        proof = line.split("`: ", 1)[1]
        name = re.match(r"`(_patched_\w+)` matches torch 2\.13\.0 `\w+` up to: ", proof)
        assert name and name[1] in replaced, line
        assert f"({proof}); delete the override" in finding["message"]  # the proof, not the whole message


def test_everything_else_the_fix_removed_is_listed_with_it(migrated) -> None:
    findings, text, _, _ = migrated
    also = _sections(text)["Removed with them"]
    expected = [f for f in findings if f["category"] == "remove" and f["code"] != "FSU001" and f["fix"]]
    assert sorted(also) == sorted(
        f"{f['code']} {load_catalog().rule(f['code']).name} at `{f['path']}:{f['line']}`: {f['message']}"
        for f in expected
    )


def test_kept_patches_are_listed_where_they_now_are_with_why_and_nothing_is_left(migrated) -> None:
    findings, text, _, now = migrated
    sections = _sections(text)
    kept = [f for f in now if f["category"] == "keep"]  # what check finds after the fix: nothing else
    assert len(sections["Kept on purpose"]) == len(kept) == len(now) == 7
    for line, finding in zip(sections["Kept on purpose"], kept):
        assert line.startswith(f"`{finding['target']}` at `{finding['path']}:{finding['line']}`: ")
        why = line.split("`: ", 1)[1].rstrip(".")
        assert why and why in finding["message"]  # the reason check gave, without the rest of the message
    assert sections["Left for review"] == [] and "Nothing is left for review." in text


def test_files_changed_and_summary_follow_what_was_written(migrated) -> None:
    findings, text, changed, _ = migrated
    sections = _sections(text)
    assert sections["Files changed"] == [f"`{path}`" for path in changed]
    removable = [f for f in findings if f["category"] == "remove" and f["fix"]]
    summary = "\n".join(sections["Summary"])
    assert f"Overrides removed: {sum(f['code'] == 'FSU001' for f in removable)}" in summary
    assert (
        f"Code removed with them (replacement functions, installers, their calls and references): {len(removable) - 4}"
        in summary
    )
    assert f"Files changed: {len(changed)}" in summary
    assert "Target torch: 2.8 to 2.13 (pyproject.toml: torch>=2.8)" in summary
    assert "Not checked with this report." in text and "Not given." in text  # no doctor, no verify


def test_diff_writes_the_same_description_and_no_file(tmp_path: Path, migrated) -> None:
    _, written, _, _ = migrated
    project = _copy(tmp_path)
    before = _snapshot(project)
    done = cli("fix", "--diff", "--no-cache", "--report", str(tmp_path / "mr.md"), ".", cwd=project)
    assert done.returncode == 1 and done.stdout.startswith(b"diff --git ")
    assert _snapshot(project) == before
    preview = (tmp_path / "mr.md").read_text(encoding="utf-8")
    assert "> Preview (`fix --diff`): nothing was written" in preview
    shown, made = _sections(preview), _sections(written)
    # the kept patches stand at their lines before the change (nothing was written), else all is the same
    assert [line.split(" at ")[0] for line in shown.pop("Kept on purpose")] == [
        line.split(" at ")[0] for line in made.pop("Kept on purpose")
    ]
    assert shown == made


# the evidence: doctor's and verify's JSON reports -------------------------------------------------------------
def _doctor(probe: str) -> dict:
    return {
        "device": "npu",
        "torch": "2.10.0",
        "checks": [
            {"name": "torch", "status": "ok", "message": "2.10.0", "details": {}},
            {"name": "accelerator plugin torch-npu", "status": "ok", "message": "torch-npu 2.10.0", "details": {}},
            {"name": "_foreach_copy_ device-async probe", "status": probe, "message": f"probe said {probe}"},
        ],
        "summary": {"ok": 2 + (probe == "ok"), "warn": 0, "fail": int(probe == "fail"), "skip": 0},
        "exit_code": int(probe == "fail"),
    }


def _verify(matched: bool, missing: list[str]) -> dict:
    return {
        "training": {"world_size": 2, "device": "cpu", "backend": "gloo", "steps": 2, "seed": 0},
        "comparison": "exact (torch.equal)",
        "steps": [{"config": "a", "step": s, "match": matched} for s in range(3)],
        "tensors": [{"what": "grads", "compared": 5, "equal": 5}, {"what": "params", "compared": 4, "equal": 4}],
        "targets": {"enhance_installed": {"patched": ["x", "y"], "migrated": ["x", "y"]}, "enhance_missing": missing},
        "matched": matched,
        "first_divergence": None if matched else {"config": "a", "step": 1},
        "exit_code": 0 if matched and not missing else 1,
    }


def _described(tmp_path: Path, doctor=None, verify=None, template=None) -> str:
    project = _copy(tmp_path)
    args = ["fix", "--diff", "--no-cache", "--report", "mr.md"] + (["--template", template] if template else [])
    if doctor is not None:
        (tmp_path / "doctor.json").write_text(json.dumps(doctor))
        args += ["--doctor-report", str(tmp_path / "doctor.json")]
    if verify is not None:
        (tmp_path / "verify.json").write_text(json.dumps(verify))
        args += ["--verify-report", str(tmp_path / "verify.json")]
    done = cli(*args, ".", cwd=project)
    assert done.returncode == 1, done.stderr
    return (project / "mr.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "probe, verdict",
    [
        ("ok", "The device-async probe passed"),
        ("fail", "The device-async probe failed"),
        ("skip", "The device-async probe did not decide (skip)"),
    ],
)
def test_the_precondition_cites_doctor(tmp_path: Path, probe: str, verdict: str) -> None:
    text = _described(tmp_path, doctor=_doctor(probe))
    precondition = text.split("## Precondition", 1)[1].split("## Verification", 1)[0]
    assert "torch 2.10.0, device npu" in precondition
    assert f"- {probe}: _foreach_copy_ device-async probe: probe said {probe}" in precondition
    assert "- ok: accelerator plugin torch-npu: torch-npu 2.10.0" in precondition
    assert verdict in precondition and "Not checked" not in precondition


@pytest.mark.parametrize(
    "matched, missing, says",
    [
        (True, [], "the patched and migrated runs match: 3 steps and 9 tensors compared, exact (torch.equal)"),
        (False, [], "differ (exact (torch.equal)), first at step 1 of configuration a"),
        (True, ["_fsdp_state.FSDPState._post_forward"], "no longer installs: `_fsdp_state.FSDPState._post_forward`"),
    ],
)
def test_the_verification_cites_verify(tmp_path: Path, matched: bool, missing: list, says: str) -> None:
    text = _described(tmp_path, verify=_verify(matched, missing))
    verification = text.split("## Verification", 1)[1]
    assert says in verification and "Not given" not in verification


def test_a_real_doctor_report_is_cited(tmp_path: Path) -> None:
    from tests.test_doctor import doctor_json

    code, report = doctor_json(str(EXAMPLE), "--device", "cpu")
    text = _described(tmp_path, doctor=report)
    precondition = text.split("## Precondition", 1)[1]
    probe = next(c for c in report["checks"] if c["name"] == "_foreach_copy_ device-async probe")
    assert f"- {probe['status']}: _foreach_copy_ device-async probe: " in precondition
    assert f"{report['summary']['ok']} ok, {report['summary']['warn']} warn" in precondition


# bad input: said before anything is fixed ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["fix", "--report", "mr.md", "--doctor-report", "missing.json"],
            "--doctor-report missing.json: cannot read it",
        ),
        (["fix", "--report", "mr.md", "--verify-report", "pyproject.toml"], "--verify-report pyproject.toml: not JSON"),
        (["fix", "--report", "mr.md", "--doctor-report", "list.json"], "not a report of `fsdp-unpatch doctor"),
        (["fix", "--doctor-report", "list.json"], "give it with --report FILE.md"),
        (["check", "--report", "mr.md"], "--report describes a fix"),
        (["fix", "--report", "no/such/folder/mr.md"], "--report no/such/folder/mr.md: cannot write it"),
    ],
)
def test_bad_report_input_is_said_and_nothing_is_fixed(tmp_path: Path, args: list, says: str) -> None:
    project = _copy(tmp_path)
    (project / "list.json").write_text("[1, 2]")
    before = _snapshot(project)
    done = cli(*args, ".", cwd=project)
    assert done.returncode == 2
    assert says in done.stderr.decode()
    assert _snapshot(project) == before


# translatable: every sentence comes from the templates module -------------------------------------------------
# The Ascend template's own words: its headings, its choices and the submitter's self-checks (never translated).
ASCEND_OWN = {f"# {h}" for h in merge_request_text.ASCEND_HEADINGS} | {
    f"- [{mark}] {text}"
    for mark in "x "
    for text in merge_request_text.ASCEND_KINDS + merge_request_text.ASCEND_SELF_CHECKS
}


@pytest.mark.parametrize("template", ["plain", "ascend"])
def test_every_sentence_of_the_description_goes_through_the_templates(tmp_path: Path, monkeypatch, template) -> None:
    monkeypatch.setattr(merge_request_text, "_", lambda message: "«" + message + "»")
    monkeypatch.setattr(merge_request_text, "_n", lambda one, many, count: "«" + (one if count == 1 else many) + "»")
    text = _described(tmp_path, doctor=_doctor("ok"), verify=_verify(True, []), template=template)
    lines = [line for line in text.splitlines() if line.strip() and line != "---" and not line.startswith("| ---")]
    assert lines and [line for line in lines if "«" not in line and line not in ASCEND_OWN] == []
    assert ("# 【合入来源】" in lines) == (template == "ascend")


CJK = re.compile("[\u4e00-\u9fff]")


def test_the_description_in_chinese_follows_the_same_findings(tmp_path: Path) -> None:
    """`--lang zh-CN --template plain`: every heading and sentence from the catalog, every finding's text
    translated; the targets, places and files (what a reviewer checks against the diff) as in English."""
    english = _copy(tmp_path / "en")
    chinese = _copy(tmp_path / "zh")
    assert cli("fix", "--diff", "--no-cache", "--report", "mr.md", ".", cwd=english).returncode == 1
    done = cli(
        "fix", "--diff", "--no-cache", "--lang", "zh-CN", "--template", "plain", "--report", "mr.md", ".", cwd=chinese
    )
    assert done.returncode == 1, done.stderr
    en = _sections((english / "mr.md").read_text(encoding="utf-8"))
    zh = _sections((chinese / "mr.md").read_text(encoding="utf-8"))
    pairs = {"已删除的覆写": "Removed overrides", "有意保留": "Kept on purpose", "改动的文件": "Files changed"}
    assert set(pairs) <= set(zh) and not any(CJK.search(heading) for heading in en)
    for heading_zh, heading_en in pairs.items():
        assert len(zh[heading_zh]) == len(en[heading_en]) > 0
        for line_zh, line_en in zip(zh[heading_zh], en[heading_en]):
            assert line_zh.split("`")[1] == line_en.split("`")[1]  # the target or the path
    for line in zh["已删除的覆写"] + zh["有意保留"] + zh["随之删除"]:
        assert CJK.search(line.split("：", 1)[1]), line  # the proof, the reason, the message: in Chinese
    assert "- 目标 torch：2.8 到 2.13（pyproject.toml: torch>=2.8）" in (chinese / "mr.md").read_text(encoding="utf-8")


def test_each_chinese_removal_carries_its_proof_not_the_whole_message(tmp_path: Path) -> None:
    """Issue 31, item 2: a Chinese "removed" bullet is the English one's proof, translated: the same
    replacement function, no cut target (`..._fsdp_collectives._ge...`) and no repeated "delete" advice."""
    english = _copy(tmp_path / "en")
    chinese = _copy(tmp_path / "zh")
    assert cli("fix", "--diff", "--no-cache", "--report", "mr.md", ".", cwd=english).returncode == 1
    assert (
        cli(
            "fix",
            "--diff",
            "--no-cache",
            "--lang",
            "zh-CN",
            "--template",
            "plain",
            "--report",
            "mr.md",
            ".",
            cwd=chinese,
        ).returncode
        == 1
    )
    en = _sections((english / "mr.md").read_text(encoding="utf-8"))["Removed overrides"]
    zh = next(
        lines
        for heading, lines in _sections((chinese / "mr.md").read_text(encoding="utf-8")).items()
        if heading.startswith("已删除")
    )
    assert len(zh) == len(en) == 4
    for line_zh, line_en in zip(zh, en):
        replacement = re.match(r"`(\w+)` matches torch ", line_en.split("`: ", 1)[1])[1]
        proof = line_zh.split("：", 1)[1]
        assert proof.startswith(f"`{replacement}` ") and CJK.search(proof), line_zh
        assert "..." not in proof and "torch.distributed" not in proof, line_zh
