"""`audit`, `doctor` and `verify` speak Chinese under a Chinese locale (issue 31 item 4): their tables, verdicts
and errors; the English output is what it was, and the JSON stays English whatever the language.

`verify` trains for a minute, so its rendering is tested on a verification made here (no training); its
errors are tested on the command line, where they come before any training.
"""

from __future__ import annotations

import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import Phrase, translated
from tests.integration import cli
from tests.test_i18n import NO_LOCALE, ZH_LOCALE, _console, _english_prose

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
AUDIT_TREE = ROOT / "tests" / "fixtures" / "audit"
CJK = re.compile("[\u3400-\u9fff]")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language(i18n.ENGLISH)


def _prose_left(text: str) -> list[str]:
    """English sentences (four words or more, code spans aside) in `text`, line by line."""
    return [run for line in text.splitlines() for run in _english_prose(line)]


# --- the Phrase ---------------------------------------------------------------------------------------------------


def test_a_phrase_is_its_english_text_and_translates_with_its_fields() -> None:
    inner = Phrase("`{name}` comes from outside this function", name="dst")
    phrase = Phrase(
        "dst {destination} ({destination_evidence}), src {source} ({source_evidence})",
        destination="?",
        destination_evidence=inner,
        source=Phrase("pinned cpu"),
        source_evidence="x",
    )
    assert phrase == "dst ? (`dst` comes from outside this function), src pinned cpu (x)"
    assert (
        json.dumps({"why": phrase}) == '{"why": "dst ? (`dst` comes from outside this function), src pinned cpu (x)"}'
    )
    i18n.set_language(i18n.CHINESE)
    assert translated(phrase) == "dst ?（`dst` 来自此函数之外），src 锁页内存 cpu（x）"
    assert translated(ValueError(phrase)) == translated(phrase)  # an exception raised with a phrase
    assert translated("plain text") == "plain text" and translated(ValueError("a", "b")) == "('a', 'b')"
    rebuilt = Phrase.from_json(json.loads(json.dumps(phrase.to_json())))  # another process's phrase
    assert rebuilt == phrase and translated(rebuilt) == translated(phrase)
    import copy
    import pickle

    assert copy.deepcopy(phrase) is phrase and translated(pickle.loads(pickle.dumps(phrase))) == translated(phrase)
    i18n.set_language(i18n.ENGLISH)
    assert translated(phrase) == str(phrase)


# --- audit foreach-copy ---------------------------------------------------------------------------------------------


def test_audit_foreach_copy_prints_a_chinese_table() -> None:
    run = _console("audit", "foreach-copy", ".", cwd=AUDIT_TREE, env=ZH_LOCALE)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "`torch._foreach_copy_` 调用点：10 个，分布在 6 个文件中。"
    assert lines[2] == "| 调用点 | 类型 | 同设备快速路径 | 判定依据 | 回归测试 |"
    rows = {row.split(" | ")[0]: row.split(" | ")[1:] for row in lines[4:]}
    assert len(rows) == 10
    d2h = rows[
        "| `test/test_npu.py:9` `TestForeachCopy.test_foreach_copy_d2h`：`torch._foreach_copy_(dst, src, non_blocking=True)`"
    ]
    assert d2h == [
        "测试中的主机与设备间拷贝",
        "否",
        'dst 锁页内存 cpu（`pin_memory=True`），src npu（`device="npu:0"`）；non_blocking=True：拷贝走主机与设备间的路径，'
        "由 `non_blocking` 控制",
        "`pytest test/test_npu.py -k test_foreach_copy_d2h`：`non_blocking` 的语义不变 |",
    ]
    kinds = {cells[0] for cells in rows.values()}
    assert kinds == {
        "编译器 lowering 注册",
        "图 replay 的输入拷贝",
        "FSDP2 集合通信路径",
        "被 mock 的调用",
        "测试中的主机与设备间拷贝",
        "其他",
    }
    assert {cells[1] for cells in rows.values()} == {"不会到达", "可能命中", "预期命中", "否", "是", "未知"}
    for cells in rows.values():  # what decides it and what to re-test: Chinese sentences around the code
        assert CJK.search(cells[2]) and CJK.search(cells[3]), cells
    assert _prose_left(run.stdout) == []


def test_audit_foreach_copy_in_english_and_json_are_unchanged() -> None:
    english = _console("audit", "foreach-copy", ".", cwd=AUDIT_TREE, env=NO_LOCALE)
    assert english.stdout == (ROOT / "tests" / "fixtures" / "audit_expected" / "foreach_copy.md").read_text()
    as_json = [
        _console("audit", "foreach-copy", "--format", "json", ".", cwd=AUDIT_TREE, env=env)
        for env in (NO_LOCALE, ZH_LOCALE)
    ]
    assert as_json[0].stdout == as_json[1].stdout and not CJK.search(as_json[1].stdout)
    d2h = next(s for s in json.loads(as_json[1].stdout) if s["function"].endswith("test_foreach_copy_d2h"))
    assert d2h["kind_label"] == "host-device copy in tests"
    assert d2h["decided_by"] == (
        'dst pinned cpu (`pin_memory=True`), src npu (`device="npu:0"`); non_blocking=True: '
        "the copy takes the host-device path, which `non_blocking` controls"
    )


def test_audit_of_the_example_and_its_errors_in_chinese(tmp_path: Path) -> None:
    run = _console("audit", "foreach-copy", ".", cwd=EXAMPLE, env=ZH_LOCALE)
    assert run.returncode == 0 and run.stdout.startswith("`torch._foreach_copy_` 调用点：4 个，分布在 1 个文件中。\n")
    assert "| FSDP2 集合通信路径 | 预期命中 | FSDP2 在训练设备上的缓冲区之间拷贝；" in run.stdout
    assert "`all_gather_output` 来自此函数之外" in run.stdout and _prose_left(run.stdout) == []
    (tmp_path / "broken.py").write_text("torch._foreach_copy_(a, b\n")
    broken = cli("audit", "foreach-copy", ".", cwd=tmp_path, env=ZH_LOCALE)
    assert broken.returncode == 2
    assert re.fullmatch(r"fsdp-unpatch: 错误：broken\.py:\d+:\d+: 语法错误：.*\n", broken.stderr.decode()), (
        broken.stderr
    )
    assert broken.stdout.decode() == "`torch._foreach_copy_` 调用点：0 个，分布在 0 个文件中。\n\n" + (
        "| 调用点 | 类型 | 同设备快速路径 | 判定依据 | 回归测试 |\n| --- | --- | --- | --- | --- |\n"
    )


# --- doctor -------------------------------------------------------------------------------------------------------

DOCTOR_SUMMARY_ZH = re.compile(r"\d+ 项 ok、\d+ 项 warn、\d+ 项 fail、\d+ 项 skip -> (通过|不通过)")
DOCTOR_SUMMARY_EN = re.compile(r"\d+ ok, \d+ warn, \d+ fail, \d+ skip -> (OK|FAIL)")


def _rows(output: str) -> list[list[str]]:
    """The cells of each table row, a cell's wrapped lines joined (rich folds a long cell over several lines)."""
    rows: list[list[str]] = []
    for line in output.splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{above} {below}".strip() for above, below in zip(rows[-1], cells)]
    return rows


def _squeezed(text: str) -> str:
    """Without white space: where rich wrapped a cell, and where it did not, read the same."""
    return re.sub(r"\s+", "", text)


def test_doctor_prints_chinese() -> None:
    run = _console("doctor", "--target-torch", "2.6", ".", cwd=EXAMPLE, env=ZH_LOCALE)
    assert run.returncode == 1, run.stderr  # torch 2.6 is older than three of the example's overrides need
    lines = run.stdout.splitlines()
    assert lines[0].startswith("fsdp-unpatch doctor：torch "), lines[0]
    assert re.search(r"，设备 \w+（dispatch key：", lines[0]), lines[0]
    assert re.match(r"┃ 状态 +┃ 检查 +┃ 原因 +┃$", lines[2]), lines[2]
    rows = _rows(run.stdout)
    squeezed = [_squeezed("|".join(row)) for row in rows]
    assert (
        _squeezed(
            "fail|ops.fsdp.all_gather_copy_in 需要 torch >= 2.8|--target-torch 2.6 早于 2.8（原生路径从该版本起才支持非 "
            "CUDA 设备）：在此分支上保留这个覆写（覆写位于 legacy_npu/distributed/fsdp/_add_fsdp_patch.py:157）"
        )
        in squeezed
    ), rows
    assert any(row[:2] == ["ok", "torch"] and "（包元数据）；版本检查使用 --target-torch 2.6" in row[2] for row in rows)
    assert ["skip", "_foreach_copy_ 设备异步探测"] in [row[:2] for row in rows], rows
    assert DOCTOR_SUMMARY_ZH.fullmatch(lines[-1]) and lines[-1].endswith("-> 不通过"), lines[-1]
    for status, name, why in rows:  # every check's name and reason is Chinese, code and versions aside
        assert status in ("ok", "warn", "fail", "skip"), (status, name, why)
        assert name == "torch" or CJK.search(name), name
        assert CJK.search(why) or name.startswith("加速器插件 "), why  # a plugin found: its name and version
    assert _prose_left(run.stdout) == []


def test_doctor_in_english_and_its_json_stay_english() -> None:
    english = cli("doctor", "--target-torch", "2.6", ".", cwd=EXAMPLE, env=NO_LOCALE).stdout.decode()
    assert not CJK.search(english)
    assert english.startswith("fsdp-unpatch doctor: torch ") and ", device " in english.splitlines()[0]
    assert re.match(r"┃ status ┃ check +┃ why +┃$", english.splitlines()[2])
    rows = [" | ".join(row) for row in _rows(english)]
    assert (
        "fail | torch >= 2.8 for ops.fsdp.all_gather_copy_in | --target-torch 2.6 is older than 2.8, where the native "
        "path starts serving non-CUDA devices: keep this override on this branch (overridden at "
        "legacy_npu/distributed/fsdp/_add_fsdp_patch.py:157)"
    ) in rows, rows
    assert DOCTOR_SUMMARY_EN.fullmatch(english.splitlines()[-1])
    as_json = [
        cli("doctor", "--target-torch", "2.6", "--output-format", "json", ".", cwd=EXAMPLE, env=env).stdout
        for env in (NO_LOCALE, ZH_LOCALE)
    ]
    assert as_json[0] == as_json[1]
    checks = {c["name"]: c for c in json.loads(as_json[1])["checks"]}
    assert checks["torch >= 2.8 for ops.fsdp.all_gather_copy_in"]["details"]["source"] == "--target-torch"
    assert checks["_foreach_copy_ device-async probe"]["status"] in ("ok", "warn", "fail", "skip")


def test_doctor_errors_in_chinese() -> None:
    bad = cli("doctor", "--target-torch", "abc", cwd=EXAMPLE, env=ZH_LOCALE).stderr.decode()
    assert "错误：--target-torch 的值无效：不是 torch 版本：'abc'（应为 MAJOR.MINOR，例如 2.13）" in bad
    missing = cli("doctor", "no-such-folder", cwd=EXAMPLE, env=ZH_LOCALE).stderr.decode()
    assert "没有这个文件或目录：no-such-folder" in missing


# --- verify ---------------------------------------------------------------------------------------------------------


def _verification(diverged: bool):
    """What `verify` compares after both runs trained: the example's targets, two configurations of two steps;
    `diverged`: the migrated run's step 2 differs, one override is still replaced and five enhance targets
    are no longer installed."""
    from fsdp_unpatch.verification.compare import (
        GRADIENTS,
        PARAMETERS,
        Comparison,
        StepRow,
        TargetReport,
        TensorSummary,
        Tolerance,
    )
    from fsdp_unpatch.verification.report import Verification
    from fsdp_unpatch.verification.runner import RunOutcome
    from fsdp_unpatch.verification.spec import InstallerSpec, RunSpec, TrainingSpec
    from fsdp_unpatch.verification.targets import COLLECTIVE_TARGETS, ENHANCE_TARGETS

    def outcome(label: str, installers: list[str], replaced: list[str], seconds: float, **extra) -> RunOutcome:
        targets = {t: {"overridden": True, "current": extra.get("current", {}).get(t, "npu." + t)} for t in replaced}
        meta = {"targets": targets, "kernels_reregistered": extra.get("kernels", {})}
        spec = RunSpec(label, tuple(InstallerSpec.parse(s) for s in installers), ("/srv/legacy",))
        return RunOutcome(spec, "--patch", Path("/srv/run"), meta=meta, results=[], seconds=seconds)

    enhance, collective = list(ENHANCE_TARGETS), list(COLLECTIVE_TARGETS)
    patched = outcome(
        "patched",
        ["npu.p:_apply_fsdp_enhance_patch", "npu.p:_apply_fsdp_patch"],
        collective + enhance,
        12.34,
        kernels={"fsdp::all_gather_copy_in": ["PrivateUse1"]},
        current={"ops.fsdp.all_gather_copy_in": "<missing>"},
    )
    kept = enhance[:2] if diverged else enhance
    migrated = outcome("migrated", ["npu.p:_apply_fsdp_enhance_patch"], collective[1:2] * diverged + kept, 11.0)
    rows, tensors = [], []
    for config in ("reshard_after_forward=True", "reshard_after_forward=False"):
        for step in (1, 2):
            bad = diverged and step == 2
            rows.append(
                StepRow(
                    config,
                    step,
                    [2.5, 2.25],
                    [2.5, 2.75 if bad else 2.25],
                    0.5 * bad,
                    0.125 * bad,
                    not bad,
                    not bad,
                    first_divergence=bad,
                )
            )
        tensors.append(TensorSummary(PARAMETERS, config, 12, 12 - diverged, 0.25 * diverged, "w" if diverged else None))
        tensors.append(TensorSummary(GRADIENTS, config, 12, 12, 0.0, None))
    report = TargetReport(
        collective, collective[1:2] * diverged, enhance, kept, patched.meta["kernels_reregistered"], {}, migrated=True
    )
    return Verification(
        TrainingSpec(steps=2),
        patched,
        migrated,
        Comparison(Tolerance(), rows, tensors),
        report,
        COLLECTIVE_TARGETS,
        ENHANCE_TARGETS,
    )


def _rendered(diverged: bool) -> str:
    from rich.console import Console

    from fsdp_unpatch.verification.report import render

    out = io.StringIO()
    render(_verification(diverged), Console(file=out, width=132, highlight=False, color_system=None))
    return out.getvalue()


def test_verify_renders_its_tables_and_verdicts_in_chinese() -> None:
    i18n.set_language(i18n.CHINESE)
    failed, passed = _rendered(True), _rendered(False)
    lines = [line.rstrip() for line in failed.splitlines()]  # rich pads a table's title to the table's width
    assert lines[0] == (
        "fsdp-unpatch verify：world size 2，设备 cpu（gloo），2 步 × 2 种配置，随机种子 0，混合精度 param=bfloat16 "
        "reduce=float32；比较方式：完全相等（torch.equal）"
    )
    assert lines[1] == "  打补丁：npu.p:_apply_fsdp_enhance_patch, npu.p:_apply_fsdp_patch，来自 /srv/legacy（12.3 秒）"
    for title in ("逐步比较", "参数和梯度", "安装目标（每次运行的安装函数替换了什么）"):
        assert title in lines, title
    assert re.search(r"┃ 配置 +┃ 步 ┃ loss（打补丁） ┃ loss（迁移后） ┃ 最大绝对差 ┃ 状态 +┃", failed)
    assert "│ reshard 开 │  2 │          2.375 │          2.625 │        0.5 │ 出现分歧（首次）：loss、梯度 │" in lines
    assert "│ 参数（最终）     │ reshard 关 │ 11/12 │       0.25 │ w        │" in lines
    assert "│ ops.fsdp.all_gather_copy_in                        │ remove │ 已替换 │ 已替换 │ 仍被替换 │" in lines
    assert "│ _fsdp_collectives.foreach_reduce                   │ keep   │ 已替换 │ -      │ 缺失     │" in lines
    assert "    ops.fsdp.all_gather_copy_in -> （已不存在：它的 op packet 被替换成了一个函数）" in lines
    assert "  打补丁运行中为以下 dispatch key 重新注册了 fsdp::all_gather_copy_in 的 kernel：PrivateUse1" in lines
    assert "不通过：两次运行出现分歧，首次在第 2 步（reshard_after_forward=True）：loss 差 0.5，梯度差 0.125" in lines
    assert lines[-1].startswith("不通过：迁移后运行中不再安装增强补丁：_fsdp_collectives.foreach_reduce, ")
    assert passed.splitlines()[-1] == (
        "通过：打补丁与迁移后两次运行一致（4 步，48 个张量，完全相等（torch.equal））；增强补丁仍然安装着（7 个目标）"
    )
    assert _prose_left(failed) == [] and _prose_left(passed) == []


def test_verify_renders_english_as_before() -> None:
    failed, passed = _rendered(True), _rendered(False)
    assert not CJK.search(failed + passed)
    lines = [line.rstrip() for line in failed.splitlines()]
    assert lines[0] == (
        "fsdp-unpatch verify: world size 2, device cpu (gloo), 2 steps x 2 configurations, seed 0, mixed precision "
        "param=bfloat16 reduce=float32; comparison: exact (torch.equal)"
    )
    assert lines[1] == "  patched: npu.p:_apply_fsdp_enhance_patch, npu.p:_apply_fsdp_patch from /srv/legacy (12.3 s)"
    assert (
        "│ reshard on  │    2 │          2.375 │           2.625 │          0.5 │ DIVERGED (first): loss, grads │"
        in lines
    )
    assert "  replacements in the patched run:" in lines
    assert "    ops.fsdp.all_gather_copy_in -> (gone: its op packet was replaced by a function)" in lines
    assert "  kernels of fsdp::all_gather_copy_in re-registered in the patched run for: PrivateUse1" in lines
    assert (
        "FAIL: the runs diverge, first at step 2 (reshard_after_forward=True): loss diff 0.5, gradient diff 0.125"
        in lines
    )
    assert lines[-1].startswith("FAIL: the enhance patch is no longer installed in the migrated run: ")
    assert passed.splitlines()[-1] == (
        "OK: the patched and migrated runs match (4 steps, 48 tensors, exact (torch.equal)); "
        "enhance patch still installed (7 targets)"
    )


@pytest.mark.parametrize(
    "args, chinese",
    [
        (["--patch", "legacy_npu"], "错误：--patch：'legacy_npu' 不是 MODULE:FUNCTION 形式（没有 ':'）"),
        (
            [],
            "错误：请给出项目文件夹（PATH），或用 --patch MODULE:FUNCTION 给出旧补丁（并用 --migrated 给出迁移后的代码）",
        ),
        (["--patch", "a:b", "--migrated-path", "."], "错误：给了 --migrated-path，却没有 --migrated"),
        (["--patch", "a:b", "--plot", "x.txt"], "错误：--plot x.txt：文件名必须以 .png, .svg, .pdf 之一结尾"),
    ],
)
def test_verify_usage_errors_in_chinese(args: list[str], chinese: str, tmp_path: Path) -> None:
    done = cli("verify", *args, cwd=tmp_path, env=ZH_LOCALE)
    assert done.returncode == 2 and chinese in done.stderr.decode(), done.stderr.decode()


def test_a_workers_setup_error_reaches_the_parent_translatable(tmp_path: Path, monkeypatch) -> None:
    """The worker writes its error in English and in parts; the parent says it in the reader's language."""
    from fsdp_unpatch.verification import runner, training
    from fsdp_unpatch.verification.spec import InstallerSpec, RunSpec

    with pytest.raises(training.SetupError) as raised:
        training._import_installer(InstallerSpec("no_such_pkg.patch", "_apply"), "--patch", ("/srv/legacy",))
    training._write_error(tmp_path, 0, "setup", raised.value.args[0])
    written = json.loads((tmp_path / "error.rank0.json").read_text())
    assert (
        written["message"] == "--patch no_such_pkg.patch:_apply: no module named 'no_such_pkg' (looked first in "
        "--patch-path /srv/legacy)"
    )
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))  # `_finish` imports it; not needed here
    job = runner._Job(runner.RunOutcome(RunSpec("patched"), "--patch", tmp_path), [], 0.0)
    outcome = runner._finish(job, timed_out=False)
    assert outcome.error_kind == "setup" and outcome.error == written["message"]
    i18n.set_language(i18n.CHINESE)
    assert translated(outcome.error) == (
        "--patch no_such_pkg.patch:_apply：没有名为 'no_such_pkg' 的模块（先在 --patch-path /srv/legacy 中查找过）"
    )


@pytest.mark.filterwarnings("ignore:Glyph")  # the stand-in font has no Chinese characters: boxes, and a warning
def test_the_plot_speaks_chinese_only_with_a_chinese_font(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from fsdp_unpatch.verification import plot

    figures = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda figure: (figures.append(figure), real_close(figure)))
    comparison = _verification(False).comparison

    def words(font) -> tuple[bool, list[str]]:
        monkeypatch.setattr(plot, "chinese_font", lambda: font)
        in_language = plot.write_plot(comparison, str(tmp_path / "plot.png"), ("patched", "migrated"))
        figure = figures.pop()
        loss, diff = figure.axes[0], figure.axes[2]
        texts = [figure.get_suptitle(), loss.get_ylabel(), diff.get_xlabel(), diff.get_ylabel()]
        return in_language, texts + [t.get_text() for t in loss.get_legend().get_texts()] + [
            t.get_text() for t in diff.texts
        ]

    english = [
        "fsdp-unpatch verify: patched vs migrated",
        "loss (mean over ranks)",
        "step",
        "max abs difference (loss, grads)",
        "patched",
        "migrated",
        "identical: every difference is 0",
    ]
    assert words(None) == (True, english)
    i18n.set_language(i18n.CHINESE)
    assert words("DejaVu Sans") == (
        True,
        [
            "fsdp-unpatch verify：打补丁与迁移后对比",
            "loss（各 rank 的平均值）",
            "步",
            "最大绝对差（loss、梯度）",
            "打补丁",
            "迁移后",
            "完全相同：所有差异均为 0",
        ],
    )
    assert words(None) == (False, english)  # no font with Chinese characters: English rather than boxes


# --- the markdown summary (a job summary, a pull-request comment) and group help ------------------------------------


def test_the_markdown_summary_in_chinese_and_in_english(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(EXAMPLE, tmp_path / "legacy_project", ignore=shutil.ignore_patterns(".fsdp_unpatch_cache"))
    project = tmp_path / "legacy_project"
    chinese = cli("check", "--no-cache", "--output-format", "markdown", ".", cwd=project, env=ZH_LOCALE)
    text = chinese.stdout.decode()
    lines = text.splitlines()
    assert lines[2] == ":x: 9 个结果需要处理（共 16 个结果，检查了 8 个文件，目标 torch 2.8 到 2.14）。"
    assert lines[4] == "| 类别 | 结果 | 可修复 | 暂缓 |"
    assert "### 结果" in lines and "### 可用的修复" in lines and "| | 代码 | 位置 | 消息 | 修复 |" in lines
    assert "<details><summary>7 个有意保留的结果（keep 结果从不让运行失败）</summary>" in lines
    assert lines[-1] == "- 9 个安全修复：`fsdp-unpatch fix`（可先用 `fsdp-unpatch fix --diff` 预览）"
    call = next(line for line in lines if "`FSU004`" in line)
    assert "| `_apply_fsdp_patch()` 调用了一个将被删除的安装函数 | safe |" in call
    assert _prose_left(text) == []
    english = cli("check", "--no-cache", "--output-format", "markdown", ".", cwd=project, env=NO_LOCALE)
    lines = english.stdout.decode().splitlines()
    assert lines[2] == ":x: 9 findings to act on (16 in total, 8 files checked, target torch 2.8 to 2.14)."
    assert lines[4] == "| category | findings | fixable | held back |"
    assert "<details><summary>7 kept on purpose (keep findings never fail a run)</summary>" in lines
    assert lines[-1] == "- 9 safe fixes: `fsdp-unpatch fix` (preview with `fsdp-unpatch fix --diff`)"
    assert chinese.returncode == english.returncode == 1


def test_a_group_lists_its_commands_in_chinese() -> None:
    listed = cli("catalog", "--help", cwd=ROOT, env=ZH_LOCALE).stdout.decode()
    assert "  add   从 torch wheel、解包的 torch 或 site-packages 中学习其 FSDP2。" in listed.splitlines()
    english = cli("catalog", "--help", cwd=ROOT, env=NO_LOCALE).stdout.decode()
    assert "  add   Learn the FSDP2 of a torch wheel, an unpacked torch, or a..." in english.splitlines()


def test_the_merge_requests_audit_table_says_what_decides_in_chinese(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(EXAMPLE, tmp_path / "legacy_project", ignore=shutil.ignore_patterns(".fsdp_unpatch_cache"))
    project = tmp_path / "legacy_project"
    done = cli("fix", "--diff", "--no-cache", "--report", "mr.md", ".", cwd=project, env=ZH_LOCALE)
    assert done.returncode == 1, done.stderr  # --diff: there is something to fix
    text = (project / "mr.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `legacy_npu/")]
    assert len(rows) == 4
    for row in rows:
        _where, _kind, _fast, decided, retest, _change = row.strip("| ").split(" | ")
        assert decided.startswith("FSDP2 在训练设备上的缓冲区之间拷贝；dst ?（") and _prose_left(decided) == [], row
        assert retest == "FSDP2 all-gather / fully_shard 分布式测试；混合精度（all-gather 输入）", row


# --- what the other commands still said in English (issue 31, the last item) -------------------------------------

FULL_WIDTH = "，。；：？！（）、“”［］"


def _columns(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_a_chinese_help_paragraph_is_wrapped_without_stray_spaces_and_within_the_width() -> None:
    import inspect

    from fsdp_unpatch.commands.doctor import doctor

    page = cli("doctor", "--help", cwd=ROOT, env=ZH_LOCALE).stdout.decode()
    i18n.set_language(i18n.CHINESE)
    paragraphs = i18n.gettext(inspect.cleandoc(doctor.help or "")).split("\n\n")
    i18n.set_language(i18n.ENGLISH)
    long = paragraphs[1]  # four lines in the catalog, each break between Chinese characters
    assert long.count("\n") >= 2 and "\n（" in long
    block = page.split("\n\n")[2]  # usage, the first paragraph, then this one
    lines = block.splitlines()
    assert all(line.startswith("  ") and not line.startswith("   ") for line in lines), block
    assert "".join(line.strip() for line in lines) == long.replace("\n", "")  # nothing added, nothing lost
    assert all(_columns(line) <= 80 for line in lines), block
    assert not any(line.strip()[0] in "，。；：）、”" for line in lines), block  # no line starts with a comma
    joined = block.replace("\n  ", "").strip()  # a break no longer stands for a space: none may be left either
    assert not re.search(
        rf"[\u4e00-\u9fff{FULL_WIDTH}] +[\u4e00-\u9fff{FULL_WIDTH}]|[{FULL_WIDTH}] | [{FULL_WIDTH}]", joined
    )


def test_clicks_notes_in_a_chinese_help_are_chinese() -> None:
    verify = cli("verify", "--help", cwd=ROOT, env=ZH_LOCALE).stdout.decode()
    assert re.search(r"--seed INTEGER +随机种子，两次运行相同。［默认：0］\n", verify), verify
    assert re.search(r"--steps INTEGER RANGE +每种配置的训练步数。［默认：4；x>=1］\n", verify), verify
    assert re.search(r"--output-format \[text\|json\] +［默认：text］\n", verify), verify
    assert "[default" not in verify and "; x>=" not in verify
    english = cli("verify", "--help", cwd=ROOT, env=NO_LOCALE).stdout.decode()
    assert re.search(r"--steps INTEGER RANGE +Training steps per configuration\.  \[default: 4;\s+x>=1\]\n", english)
    assert re.search(r"--output-format \[text\|json\] +\[default: text\]\n", english)


def test_a_missing_option_ends_with_a_chinese_full_stop() -> None:
    chinese = cli("upgrade", cwd=ROOT, env=ZH_LOCALE).stderr.decode()
    assert chinese.endswith("\n错误：缺少选项 '--to'。\n"), chinese
    assert cli("rule", cwd=ROOT, env=ZH_LOCALE).stderr.decode().endswith("\n错误：缺少参数 'NAME'。\n")
    english = cli("upgrade", cwd=ROOT, env=NO_LOCALE).stderr.decode()
    assert english.endswith("\nError: Missing option '--to'.\n"), english


def test_check_says_its_configuration_and_declaration_problems_in_chinese(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    missing = cli("check", "--config", "nosuch.toml", ".", cwd=tmp_path, env=ZH_LOCALE).stderr.decode()
    assert "fsdp-unpatch: 错误：--config nosuch.toml：没有这个文件\n" in missing
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    (tmp_path / "requirements.txt").write_text("torch>=2.8,,\n-r nosuch.txt\n")
    warned = cli("check", "--no-cache", ".", cwd=tmp_path, env=ZH_LOCALE).stderr.decode().splitlines()
    assert any(
        line.startswith("fsdp-unpatch: 警告：requirements.txt:1：无法读取依赖 `torch>=2.8,,`（") for line in warned
    )
    assert "fsdp-unpatch: 警告：requirements.txt:2：`-r nosuch.txt`：没有这个文件，未使用" in warned
    english = cli("check", "--no-cache", ".", cwd=tmp_path, env=NO_LOCALE).stderr.decode().splitlines()
    assert "fsdp-unpatch: warning: requirements.txt:2: `-r nosuch.txt`: no such file; it is not used" in english


def test_the_merge_request_reports_errors_in_chinese(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    (tmp_path / "doctor.json").write_text("[]")

    def error(*args: str) -> str:
        done = cli(*args, ".", cwd=tmp_path, env=ZH_LOCALE)
        assert done.returncode == 2
        return done.stderr.decode()

    assert error("check", "--doctor-report", "doctor.json") == (
        "fsdp-unpatch: 错误：--doctor-report 供合并请求的描述引用：请与 --report FILE.md 一起给出\n"
    )
    assert error("check", "--report", "mr.md") == (
        "fsdp-unpatch: 错误：--report 描述的是一次修复：请与 `fix`、`check --fix` 或 `--diff` 一起使用\n"
    )
    assert error("fix", "--report", "mr.md", "--doctor-report", "doctor.json") == (
        "fsdp-unpatch: 错误：--doctor-report doctor.json：不是 `fsdp-unpatch doctor --output-format json` 的报告\n"
    )
    assert error("fix", "--report", "mr.md", "--doctor-report", "nosuch.json").startswith(
        "fsdp-unpatch: 错误：--doctor-report nosuch.json：无法读取（"
    )
