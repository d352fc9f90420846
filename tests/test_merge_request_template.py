"""`fix --report` templates (issue 31, item 2): the Ascend merge-request sections, the default for a Chinese reader,
or plain sections; the `_foreach_copy_` audit table; the design document's link; proofs against the target torch.

What the description must say is read off `check`'s JSON report of the same tree, off `audit foreach-copy` before
and after a written fix, and off the diff, never off the description's own code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fsdp_unpatch.reporting import merge_request_text as t
from tests.integration import cli
from tests.test_merge_request import _copy, _doctor, _sections, _verify

CHINESE_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}
ENGLISH_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
# A call site that no fix touches: it stays, and the table must say so.
GRAPH_REPLAY = '''"""Replays captured graphs: copies the new inputs into the captured ones."""

import torch


def replay_graph_inputs(static_inputs, new_inputs):
    torch._foreach_copy_(static_inputs, new_inputs)
'''


def _report(project: Path, *args: str, env=None, name: str = "mr.md") -> str:
    done = cli("fix", "--diff", "--no-cache", "--report", name, *args, ".", cwd=project, env=env or ENGLISH_LOCALE)
    assert done.returncode == 1, done.stderr
    return (project / name).read_text(encoding="utf-8")


def _ascend(text: str) -> dict[str, list[str]]:
    """`# 【heading】` -> its lines (empty lines left out), in order."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# 【"):
            current = line[2:]
            assert current not in sections, f"{current} twice"
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line)
    return sections


def _numbered(lines: list[str]) -> list[tuple[str, list[str]]]:
    """`N. text` items of a section, each with its `   - ` bullets."""
    items: list[tuple[str, list[str]]] = []
    for line in lines:
        if re.match(r"\d+\. ", line):
            items.append((line.split(". ", 1)[1], []))
        elif line.startswith("   - ") and items:
            items[-1][1].append(line[5:])
    return items


def _findings(project: Path, *args: str) -> list[dict]:
    return json.loads(cli("check", "--no-cache", "--output-format", "json", *args, ".", cwd=project).stdout)


# which template ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, env, config, ascend",
    [
        ((), ENGLISH_LOCALE, "", False),
        (("--lang", "zh-CN"), ENGLISH_LOCALE, "", True),
        ((), CHINESE_LOCALE, "", True),  # LANG=zh_CN.UTF-8
        (("--lang", "zh-CN", "--template", "plain"), ENGLISH_LOCALE, "", False),
        ((), ENGLISH_LOCALE, 'report-template = "ascend"\n', True),
        (("--template", "plain"), CHINESE_LOCALE, 'report-template = "ascend"\n', False),  # the flag wins
        (("--template", "ascend"), ENGLISH_LOCALE, "", True),
    ],
)
def test_the_template_is_ascend_in_chinese_unless_chosen(tmp_path: Path, args, env, config, ascend) -> None:
    project = _copy(tmp_path)
    if config:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n[tool.fsdp-unpatch]\n" + config)
    text = _report(project, *args, env=env)
    headings = [line for line in text.splitlines() if line.startswith("# ")]
    if ascend:
        assert headings == [f"# {h}" for h in t.ASCEND_HEADINGS]
    else:
        assert len(headings) == 1 and not any("【" in line for line in text.splitlines() if line.startswith("#"))
    shown = cli("fix", "--show-settings", "--report", "mr.md", *args, ".", cwd=project, env=env).stdout.decode()
    assert f'report-template = "{"ascend" if ascend else "plain"}"' in shown.splitlines()


# the Ascend sections, filled with the run's facts -----------------------------------------------------------------
@pytest.fixture(scope="module")
def example_ascend(tmp_path_factory):
    """(check's findings, the files `fix --diff` changes, the English and the Chinese Ascend description)."""
    root = tmp_path_factory.mktemp("ascend")
    project = _copy(root)
    findings = _findings(project)
    diff = cli("fix", "--diff", "--no-cache", ".", cwd=project, env=ENGLISH_LOCALE).stdout.decode()
    changed = [line.split(" b/", 1)[1] for line in diff.splitlines() if line.startswith("diff --git ")]
    english = _report(project, "--template", "ascend", name="en.md")
    chinese = _report(project, env=CHINESE_LOCALE, name="zh.md")
    return findings, changed, english, chinese


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_ascend_change_lists_each_removal_with_its_proof_and_what_stays(example_ascend, lang) -> None:
    findings, changed, english, chinese = example_ascend
    sections = _ascend(english if lang == "en" else chinese)
    assert list(sections) == list(t.ASCEND_HEADINGS)
    assert [line for line in sections[t.ASCEND_SOURCE] if line.startswith("- [x] ")] == ["- [x] 重构优化"]
    items = _numbered(sections[t.ASCEND_CHANGE])
    overrides = [f for f in findings if f["code"] == "FSU001"]
    removed = items[0][1]
    assert len(removed) == len(overrides) == 4
    replaced = {re.match(r"`(\w+)`", f["message"])[1] for f in findings if f["code"] == "FSU002"}
    for line, finding in zip(removed, overrides):
        assert line.startswith(f"`{finding['target']}`")
        assert f"`{finding['path']}:{finding['line']}`" in line
        # the proof: a replacement check proved, against a release of the target (2.8 to 2.14, pyproject.toml)
        proof = re.search(r"`(_patched_\w+)` (?:matches torch|与 torch) (\d+)\.(\d+)\.\d+ ", line)
        assert proof and proof[1] in replaced, line
        assert (int(proof[2]), int(proof[3])) >= (2, 8) and (int(proof[2]), int(proof[3])) <= (2, 14), line
        assert "outside the target" not in line and "不在目标" not in line
    kept = {(f["path"], f["line"], f["target"]) for f in findings if f["category"] == "keep"}
    kept_item = next(bullets for text, bullets in items if text.startswith(("Keep the patches", "逐字节保留")))
    assert sorted((b.split("`")[1], b.split("`")[3]) for b in kept_item) == sorted(
        (target, f"{path}:{line}") for path, line, target in kept
    )
    files = next(bullets for text, bullets in items if text.startswith(("Files changed", "改动的文件")))
    assert files == [f"`{path}`" for path in changed]
    # nothing but .py files changed, and every removed function is private
    assert all(path.endswith(".py") for path in changed)
    assert sections[t.ASCEND_DOCS][0].startswith(("Not involved", "不涉及"))
    removed_names = [re.match(r"`(\w+)`", f["message"])[1] for f in findings if f["code"] in ("FSU002", "FSU003")]
    assert removed_names and all(name.startswith("_") for name in removed_names)
    assert sections[t.ASCEND_INTERFACE][0].startswith(("Not involved", "不涉及"))
    # the scenarios name every target the change hands back to native FSDP2
    scenarios = "\n".join(sections[t.ASCEND_VERIFY])
    assert all(f"`{f['target']}`" in scenarios for f in overrides)


def test_the_ascend_change_in_chinese_is_chinese(example_ascend) -> None:
    _, _, english, chinese = example_ascend
    cjk = re.compile("[\u4e00-\u9fff]")
    for heading, lines in _ascend(chinese).items():
        prose = [re.sub(r"`[^`]*`", "", line) for line in lines if not line.startswith("|")]
        assert all(
            cjk.search(line) for line in prose if re.search(r"[A-Za-z]{4,}", line) and "fsdp-unpatch" not in line
        ), (
            heading,
            [line for line in prose if not cjk.search(line)],
        )
    # the same bullets as the English description, item for item (targets and places as they are)
    en = [b for _, bullets in _numbered(_ascend(english)[t.ASCEND_CHANGE]) for b in bullets]
    zh = [b for _, bullets in _numbered(_ascend(chinese)[t.ASCEND_CHANGE]) for b in bullets]
    assert [b.split("`")[1] for b in zh] == [b.split("`")[1] for b in en]


def test_the_checklist_ticks_what_the_run_shows(tmp_path: Path, example_ascend) -> None:
    _, _, english, _ = example_ascend
    checks = [line for line in _ascend(english)[t.ASCEND_CHECKLIST] if line.startswith("- [")]
    # proofs against the target, no doctor, no verify, nothing left for review; the submitter's own checks open
    assert [line[:6] for line in checks[:4]] == ["- [x] ", "- [ ] ", "- [ ] ", "- [x] "]
    assert checks[4:] == [f"- [ ] {text}" for text in t.ASCEND_SELF_CHECKS]
    project = _copy(tmp_path)
    (tmp_path / "doctor.json").write_text(json.dumps(_doctor("ok")))
    (tmp_path / "verify.json").write_text(json.dumps(_verify(True, [])))
    evidence = ("--doctor-report", str(tmp_path / "doctor.json"), "--verify-report", str(tmp_path / "verify.json"))
    text = _report(project, "--template", "ascend", *evidence)
    checks = [line for line in _ascend(text)[t.ASCEND_CHECKLIST] if line.startswith("- [")]
    assert [line[:6] for line in checks[:4]] == ["- [x] "] * 4
    results = "\n".join(_ascend(text)[t.ASCEND_VERIFY])
    assert "the patched and migrated runs match: 3 steps and 9 tensors compared" in results
    assert "The device-async probe passed" in results


def test_a_proof_outside_the_target_is_said_and_not_ticked(tmp_path: Path) -> None:
    """`--target-torch 2.12`: the example's copies of `_get_param_all_gather_inputs` and `all_gather_copy_in` are
    the body of torch 2.12.1 too (the newest 2.12 release in the data), but its `finalize_backward` copy is the
    body of 2.13.0 and 2.14 only: that proof names the newest of them, 2.14.1, outside the target, and the
    checklist does not tick proofs."""
    project = _copy(tmp_path)
    findings = _findings(project, "--target-torch", "2.12")
    text = _report(project, "--template", "ascend", "--target-torch", "2.12")
    removed = _numbered(_ascend(text)[t.ASCEND_CHANGE])[0][1]
    assert [line.split("`")[1] for line in removed] == [f["target"] for f in findings if f["code"] == "FSU001"]
    for line in removed:
        if line.startswith("`_fsdp_param_group.FSDPParamGroup.finalize_backward`"):
            assert "matches torch 2.14.1 `finalize_backward` (outside the target torch) up to: " in line
        else:
            assert re.search(r"matches torch 2\.12\.1 `\w+` up to: ", line) and "outside" not in line, line
    assert t.OUTSIDE_TARGET in text
    assert _ascend(text)[t.ASCEND_CHECKLIST][0] == f"- [ ] {t.A_CHECK_PROOF}"


def test_a_public_name_removed_is_an_interface_change(tmp_path: Path) -> None:
    """The installer named without its underscore (`apply_fsdp_patch`, everywhere in the example): the fix still
    deletes it (FSU003), and 【接口变更】 names it instead of saying "not involved"."""
    project = _copy(tmp_path)
    for path in project.rglob("*.py"):
        path.write_text(re.sub(r"\b_apply_fsdp_patch\b", "apply_fsdp_patch", path.read_text(encoding="utf-8")))
    installers = [f for f in _findings(project) if f["code"] == "FSU003"]
    assert [re.match(r"`(\w+)`", f["message"])[1] for f in installers] == ["apply_fsdp_patch"]
    interface = _ascend(_report(project, "--template", "ascend"))[t.ASCEND_INTERFACE]
    assert interface == [t.A_INTERFACE_PUBLIC.format(names="`apply_fsdp_patch`")]


# the audit table --------------------------------------------------------------------------------------------------
def _rows(markdown: str) -> list[list[str]]:
    """The body rows of the Markdown table in `markdown`, as cells."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[2:]]


@pytest.mark.parametrize("template", ["plain", "ascend"])
def test_the_audit_table_is_the_audit_of_the_tree_with_what_the_change_does(tmp_path: Path, template) -> None:
    project = _copy(tmp_path)
    (project / "legacy_npu" / "graph_replay.py").write_text(GRAPH_REPLAY)
    before = _rows(cli("audit", "foreach-copy", ".", cwd=project, env=ENGLISH_LOCALE).stdout.decode())
    assert len(before) == 5
    done = cli("fix", "--no-cache", "--report", "mr.md", "--template", template, ".", cwd=project, env=ENGLISH_LOCALE)
    assert done.returncode == 0, done.stderr
    after = _rows(cli("audit", "foreach-copy", ".", cwd=project, env=ENGLISH_LOCALE).stdout.decode())
    table = _rows((project / "mr.md").read_text(encoding="utf-8"))
    assert [row[:5] for row in table] == before  # the same data `audit foreach-copy` prints, row for row
    left = {(row[0].split("` `", 1)[1]) for row in after}  # `function`: `call`, without the line (lines move)
    assert [row[5] for row in table] == ["stays" if row[0].split("` `", 1)[1] in left else "removed" for row in table]
    assert [row[5] for row in table].count("stays") == 1 and len(after) == 1


def test_the_audit_table_in_chinese(tmp_path: Path) -> None:
    project = _copy(tmp_path)
    (project / "legacy_npu" / "graph_replay.py").write_text(GRAPH_REPLAY)
    before = _rows(cli("audit", "foreach-copy", ".", cwd=project, env=ENGLISH_LOCALE).stdout.decode())
    text = _report(project, env=CHINESE_LOCALE)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| "))
    assert header == "| 调用点 | 类型 | 同设备快速路径 | 判定依据 | 回归测试 | 本次改动 |"
    table = _rows(text)
    assert [row[0] for row in table] == [row[0] for row in before]  # the call sites as they are
    kinds = {"FSDP2 collectives path": "FSDP2 集合通信路径", "graph-replay input copy": "图 replay 的输入拷贝"}
    assert [row[1] for row in table] == [kinds[row[1]] for row in before]
    assert [row[5] for row in table] == ["删除"] * 4 + ["保留"]


# the design document ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("template", ["plain", "ascend"])
def test_the_design_document_is_linked_when_configured(tmp_path: Path, template) -> None:
    project = _copy(tmp_path)
    assert "https://" not in _report(project, "--template", template, name="none.md")  # not configured: no link
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8") + '\n[tool.fsdp-unpatch]\ndesign-doc = "https://example.org/fsdp2.md"\n'
    )
    configured = _report(project, "--template", template, name="configured.md")
    flagged = _report(project, "--template", template, "--design-doc", "https://example.org/v2.md", name="flag.md")
    line = "- Design document: <{}>" if template == "plain" else "Detailed design: <{}>"
    assert line.format("https://example.org/fsdp2.md") in configured.splitlines()
    assert line.format("https://example.org/v2.md") in flagged.splitlines() and "fsdp2.md" not in flagged
    if template == "ascend":  # in the change's section, before its plan
        assert _ascend(configured)[t.ASCEND_CHANGE][0] == line.format("https://example.org/fsdp2.md")
    else:
        assert line.format("https://example.org/fsdp2.md")[2:] in _sections(configured)["Summary"]


# bad input: said before anything is fixed -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "config, args, says",
    [
        (
            'report-template = "fancy"\n',
            ("--report", "mr.md"),
            '`report-template` must be "ascend" or "plain", not \'fancy\'',
        ),
        ("design-doc = 3\n", ("--report", "mr.md"), "`design-doc` must be a link to the design document"),
        ('design-doc = "a\\nb"\n', ("--report", "mr.md"), "`design-doc` must be a link to the design document"),
        (
            "",
            ("--template", "ascend"),
            "--template shapes the merge-request description: give it with --report FILE.md",
        ),
        ("", ("--design-doc", "https://x"), "--design-doc shapes the merge-request description: give it with --report"),
        ("", ("--report", "mr.md", "--template", "fancy"), "Invalid value for '--template'"),
    ],
)
def test_bad_template_input_is_said_and_nothing_is_fixed(tmp_path: Path, config: str, args, says: str) -> None:
    project = _copy(tmp_path)
    if config:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n[tool.fsdp-unpatch]\n" + config)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = cli("fix", *args, ".", cwd=project, env=ENGLISH_LOCALE)
    assert done.returncode == 2
    assert says in done.stderr.decode()
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
