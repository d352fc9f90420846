"""zh-CN throughout (issue 24, item 1): the language is chosen by `--lang`, `lang` in the configuration or the
locale; findings, summaries, errors, `explain`, `rules` and `--help` speak it; machine formats stay English;
every string of the catalog is translated with the same placeholders, and the catalog is current.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fsdp_unpatch import i18n
from tests.integration import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
sys.path.insert(0, str(ROOT / "scripts"))
import i18n_catalog  # noqa: E402

FINDING = re.compile(r"^(?P<where>\S+:\d+:\d+): (?P<code>FSU\d+) \[(?P<category>\w+)\] (?P<message>.*)$")
SUMMARY_ZH = re.compile(
    r"在 8 个文件中发现 16 个结果（9 remove、7 keep）。9 个可用 `fsdp-unpatch fix` 修复。"
    r"目标 torch 2\.8 到 2\.14（pyproject\.toml: torch>=2\.8）。"
    r"7 个有意保留的结果未列出（`--show-kept` 可列出）。耗时 \d+\.\d\d 秒。"
)
SUMMARY_ZH_ALL = re.compile(
    r"在 8 个文件中发现 16 个结果（9 remove、7 keep）。9 个可用 `fsdp-unpatch fix` 修复。"
    r"目标 torch 2\.8 到 2\.14（pyproject\.toml: torch>=2\.8）。耗时 \d+\.\d\d 秒。"
)
SUMMARY_EN = re.compile(
    r"Found 16 findings \(9 remove, 7 keep\) in 8 files\. 9 fixable with `fsdp-unpatch fix`\. "
    r"Target torch 2\.8 to 2\.14 \(pyproject\.toml: torch>=2\.8\)\. "
    r"7 kept on purpose not listed \(`--show-kept` lists them\)\. Took \d+\.\d\d s\."
)
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
ZH_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}


@pytest.fixture(autouse=True)
def english_afterwards():
    """A run in this process leaves its language behind; the next test of the worker expects English."""
    yield
    i18n.set_language(i18n.ENGLISH)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "legacy_project", ignore=shutil.ignore_patterns(".fsdp_unpatch_cache"))
    return tmp_path / "legacy_project"


def _english_prose(text: str) -> list[str]:
    """Runs of four or more English words outside code spans: what a translated message must not hold."""
    return re.findall(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}", re.sub(r"`[^`]*`", "", text))


def _console(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """The tool as a user runs it: a new process, the locale in its environment."""
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", *args],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
        capture_output=True,
        text=True,
    )


# --- the "done when" -------------------------------------------------------------------------------------


def test_a_chinese_locale_prints_chinese_findings_and_summary(example: Path) -> None:
    run = _console("check", "--no-cache", "--show-kept", ".", cwd=example, env=ZH_LOCALE)
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    findings = [FINDING.match(line) for line in lines if FINDING.match(line)]
    assert len(findings) == 16
    for finding in findings:
        assert re.search("[\u4e00-\u9fff]", finding["message"]) and not _english_prose(finding["message"]), finding[0]
    call = "legacy_npu/_api_patches.py:20:5: FSU004 [remove]"
    assert f"{call} `_apply_fsdp_patch()` 调用了一个将被删除的安装函数（可修复）" in lines
    assert (
        "legacy_npu/distributed/fsdp/_add_fsdp_patch.py:250:5: FSU201 [keep] `_fsdp_collectives.foreach_reduce`："
        "增强补丁，保留（包装梯度归约，以便之后释放缓存的 reduce-scatter 输入）" in lines
    )
    assert SUMMARY_ZH_ALL.fullmatch(lines[-1]), lines[-1]
    quiet = _console("check", "--no-cache", ".", cwd=example, env=ZH_LOCALE).stdout.splitlines()
    assert len([line for line in quiet if FINDING.match(line)]) == 9  # the 7 keep findings are counted, not listed
    assert SUMMARY_ZH.fullmatch(quiet[-1]), quiet[-1]


def test_lang_en_wins_over_a_chinese_locale(example: Path) -> None:
    english = _console("check", "--no-cache", ".", cwd=example, env=NO_LOCALE)
    flagged = _console("check", "--no-cache", "--lang", "en", ".", cwd=example, env=ZH_LOCALE)
    assert flagged.returncode == english.returncode == 1
    assert flagged.stdout.splitlines()[:-1] == english.stdout.splitlines()[:-1]  # the last line holds a time
    assert SUMMARY_EN.fullmatch(flagged.stdout.splitlines()[-1])


# --- how the language is chosen ---------------------------------------------------------------------------------


def _summary(outcome) -> str:
    return outcome.stdout.decode().splitlines()[-1]


@pytest.mark.parametrize(
    "args",
    [("--lang", "zh-CN", "check"), ("--lang=zh_CN", "check"), ("check", "--lang", "zh-CN"), ("check", "--lang=zh")],
)
def test_the_lang_flag_anywhere_on_the_command_line(example: Path, args: tuple[str, ...]) -> None:
    outcome = cli(*args, "--no-cache", ".", cwd=example, env=NO_LOCALE)
    assert outcome.returncode == 1
    assert SUMMARY_ZH.fullmatch(_summary(outcome))


@pytest.mark.parametrize(
    "env, chinese",
    [
        ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, True),
        ({"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, True),
        ({"LC_ALL": "zh_TW.UTF-8", "LC_MESSAGES": "", "LANG": "C"}, True),
        ({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, False),  # LC_ALL first, as POSIX
        ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}, False),
    ],
)
def test_the_locale_decides_when_nothing_else_does(example: Path, env: dict, chinese: bool) -> None:
    outcome = cli("check", "--no-cache", ".", cwd=example, env=env)
    assert (SUMMARY_ZH if chinese else SUMMARY_EN).fullmatch(_summary(outcome))


def test_lang_in_the_configuration_over_the_locale_under_the_flag(example: Path) -> None:
    pyproject = example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + '\n[tool.fsdp-unpatch]\nlang = "zh-CN"\n')
    assert SUMMARY_ZH.fullmatch(_summary(cli("check", "--no-cache", ".", cwd=example, env=NO_LOCALE)))
    flag = cli("check", "--no-cache", "--lang", "en", ".", cwd=example, env=ZH_LOCALE)
    assert SUMMARY_EN.fullmatch(_summary(flag))
    shown = cli("check", "--show-settings", ".", cwd=example, env=NO_LOCALE)
    assert 'lang = "zh-CN"' in shown.stdout.decode().splitlines()
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('lang = "zh-CN"', 'lang = "en"'))
    assert SUMMARY_EN.fullmatch(_summary(cli("check", "--no-cache", ".", cwd=example, env=ZH_LOCALE)))


def test_an_unknown_language_is_a_usage_error_that_names_it(example: Path) -> None:
    flag = cli("check", "--lang", "fr", ".", cwd=example, env=NO_LOCALE)
    assert flag.returncode == 2
    assert "--lang: unknown language 'fr' (choose one of: en, zh-CN)" in flag.stderr.decode()
    pyproject = example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + '\n[tool.fsdp-unpatch]\nlang = "fr"\n')
    configured = cli("check", ".", cwd=example, env=NO_LOCALE)
    assert configured.returncode == 2
    assert f"{pyproject}: `lang`: unknown language 'fr' (choose one of: en, zh-CN)" in configured.stderr.decode()
    wrong_type = pyproject.read_text(encoding="utf-8").replace('lang = "fr"', "lang = 1")
    pyproject.write_text(wrong_type)
    in_chinese = cli("check", ".", cwd=example, env=ZH_LOCALE)
    assert in_chinese.returncode == 2
    assert f'错误：{pyproject}: `lang` 必须是"en" 或 "zh-CN"，而不是 1' in in_chinese.stderr.decode()


# --- what is translated, and what is not -------------------------------------------------------------------------


def test_machine_formats_stay_english(example: Path) -> None:
    for output_format in ("json", "sarif", "gitlab", "github"):
        english = cli("check", "--no-cache", "--output-format", output_format, ".", cwd=example, env=NO_LOCALE)
        chinese = cli("check", "--no-cache", "--output-format", output_format, ".", cwd=example, env=ZH_LOCALE)
        assert chinese.stdout == english.stdout, output_format
        if output_format == "json":
            messages = {f["code"]: f["message"] for f in json.loads(chinese.stdout)}
            assert messages["FSU004"] == "`_apply_fsdp_patch()` calls an installer that is removed"


def test_fix_summary_errors_and_grouped_output_in_chinese(example: Path) -> None:
    diff = cli("fix", "--diff", "--no-cache", ".", cwd=example, env=ZH_LOCALE)
    assert diff.returncode == 1
    summary = diff.stderr.decode().splitlines()[-1]
    assert summary.startswith("在 8 个文件中发现 7 个结果（7 keep）。将在 2 个文件中修复 9 个。目标 torch 2.8 到 2.14")
    missing = cli("check", "no-such-folder", cwd=example, env=ZH_LOCALE)
    assert missing.returncode == 2
    assert missing.stderr.decode() == "fsdp-unpatch: 错误：no-such-folder：没有这个文件或目录\n"
    unknown = cli("check", "--select", "FSU999", ".", cwd=example, env=ZH_LOCALE)
    assert "fsdp-unpatch: 错误：--select：未知的规则代码或前缀 'FSU999'" in unknown.stderr.decode()
    grouped = cli("check", "--no-cache", "--output-format", "grouped", ".", cwd=example, env=ZH_LOCALE)
    assert (
        "  20:5 FSU004 [remove] `_apply_fsdp_patch()` 调用了一个将被删除的安装函数（可修复）" in grouped.stdout.decode()
    )


def test_explain_and_rules_in_chinese_json_in_english(example: Path) -> None:
    explained = cli("explain", "FSU001", cwd=example, env=ZH_LOCALE).stdout.decode()
    assert explained.startswith("FSU001 (collective-override)\n\n类别：remove\n修复：safe\n摘要：原生 FSDP2 已涵盖的")
    assert "## 作用\n" in explained and "## 原因\n" in explained and "## 示例\n" in explained
    assert "FSDPParamGroup.finalize_backward = _patched_finalize_backward  # FSU001: deleted" in explained
    as_json = json.loads(cli("explain", "FSU001", "--output-format", "json", cwd=example, env=ZH_LOCALE).stdout)
    assert as_json["summary"] == "Install site of an FSDP2 collectives override that native FSDP2 now covers"
    listed = cli("rules", cwd=example, env=ZH_LOCALE).stdout.decode()
    assert "collective-override" in listed and "代码" in listed and "摘要" in listed
    unknown = cli("explain", "FSU999", cwd=example, env=ZH_LOCALE)
    assert unknown.returncode == 2 and "错误：未知的规则代码或目标 'FSU999'" in unknown.stderr.decode()


def test_help_in_chinese(example: Path) -> None:
    top = cli("--help", cwd=example, env=ZH_LOCALE).stdout.decode()
    assert "查找并移除 PyTorch FSDP2 内部符号的猴子补丁。" in top
    assert "  check    报告 FSDP2 猴子补丁。" in top and "显示此帮助并退出。" in top
    check = cli("--lang", "zh-CN", "check", "--help", cwd=example, env=NO_LOCALE).stdout.decode()
    assert re.match(r"用法：\S+ check \[OPTIONS\] \[PATHS\]\.\.\.\n\n  报告 PATHS（默认：当前文件夹）下的", check), (
        check
    )
    assert "选项：" in check and "结果的报告方式（也可用环境变量" in check
    english = cli("--lang", "en", "check", "--help", cwd=example, env=ZH_LOCALE).stdout.decode()
    assert re.match(r"Usage: \S+ check \[OPTIONS\] \[PATHS\]\.\.\.\n\n  Report FSDP2 monkey-patches", english)


def test_every_help_string_of_every_command_is_translated() -> None:
    import inspect

    import click

    from fsdp_unpatch.cli import COMMANDS, main
    from fsdp_unpatch.commands.translated_help import translated_help

    i18n.set_language(i18n.CHINESE)
    commands = [main, *(main.get_command(click.Context(main), name) for name in COMMANDS)]
    untranslated = []
    while commands:
        command = commands.pop()
        texts = [inspect.cleandoc(command.help or "").partition("\f")[0], inspect.cleandoc(command.epilog or "")]
        texts += [p.help for p in command.params if isinstance(p, click.Option) and p.help]
        untranslated += [t for t in texts if t and translated_help(t) == t]
        if isinstance(command, click.Group) and command is not main:
            commands.extend(command.commands.values())
    assert untranslated == []


def _snapshot_messages() -> list[tuple[str, str]]:
    pattern = re.compile(r"^\S.*?:\d+:\d+: (FSU\d+) (.*?)(?: \[fix: \w+\])?$")
    found = set()
    for snapshot in sorted((ROOT / "tests" / "rules").glob("*/*.snap")):
        for line in snapshot.read_text(encoding="utf-8").splitlines():
            match = pattern.match(line)
            if match:
                found.add((match[1], match[2]))
    return sorted(found)


def test_every_finding_of_the_rule_cases_reads_in_chinese() -> None:
    from fsdp_unpatch.reporting.localize import localized

    messages = _snapshot_messages()
    assert len({code for code, _ in messages}) >= 25  # the snapshots hold findings of (nearly) every rule
    i18n.set_language(i18n.CHINESE)
    # FSU9xx quote what the system or the parser said about a file: that part stays as it is, the rest is Chinese.
    left = {
        (code, message): _english_prose(localized(message))
        for code, message in messages
        if not code.startswith("FSU9") and _english_prose(localized(message))
    }
    assert left == {}
    errors = {message: localized(message) for code, message in messages if code.startswith("FSU9")}
    assert len(errors) >= 5
    assert {m: t for m, t in errors.items() if not re.match("[\u4e00-\u9fff]", t)} == {}


def test_a_message_no_template_matches_is_printed_as_it_is() -> None:
    from fsdp_unpatch.reporting.localize import localized

    i18n.set_language(i18n.CHINESE)
    assert localized("something no rule says; and more of it") == "something no rule says; and more of it"
    i18n.set_language(i18n.ENGLISH)
    assert localized("`x` calls an installer that is removed") == "`x` calls an installer that is removed"


# --- the catalog ------------------------------------------------------------------------------------------------


def _placeholders(text: str) -> Counter:
    return Counter(re.findall(r"\{[^{}]*\}", text))


def test_every_string_has_a_translation_with_the_same_placeholders() -> None:
    wanted = i18n_catalog.template()
    for language in i18n.CATALOG_FOLDERS:
        catalog = i18n_catalog.read(language)
        problems = []
        for message in wanted:
            if not message.id:
                continue
            translated = catalog.get(message.id)
            forms = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = (
                [] if translated is None else [translated.string] if isinstance(message.id, str) else translated.string
            )
            if translated is None or translated.fuzzy or not strings or not all(strings):
                problems.append(("no translation", forms[0]))
                continue
            for string in strings:
                if _placeholders(string) != _placeholders(forms[-1]):
                    problems.append(("placeholders differ", forms[0], string))
        assert problems == [], language


def test_the_catalogs_are_current() -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "i18n_catalog.py"), "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


def test_an_english_run_never_loads_the_catalog(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import os\n", encoding="utf-8")
    probe = (
        "import atexit, sys\n"
        "from fsdp_unpatch import i18n\n"
        "atexit.register(lambda: print('catalogs', i18n._catalog.cache_info().currsize, file=sys.stderr))\n"
        "sys.argv = ['fsdp-unpatch', 'check', '--no-cache', 'clean.py']\n"
        "from fsdp_unpatch.cli import main\n"
        "main()\n"
    )
    for env, loaded in ((NO_LOCALE, 0), (ZH_LOCALE, 1)):
        run = subprocess.run(
            [sys.executable, "-c", probe], cwd=tmp_path, env={**os.environ, **env}, capture_output=True, text=True
        )
        assert run.returncode == 0 and f"catalogs {loaded}" in run.stderr, run.stderr


def test_the_chinese_readme_shows_what_the_tool_prints(tmp_path: Path) -> None:
    readme = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    block = readme.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    command, shown = block[0], block[1:]
    assert command == "$ LANG=zh_CN.UTF-8 fsdp-unpatch check --output-format concise legacy_project"
    shutil.copytree(EXAMPLE, tmp_path / "legacy_project", ignore=shutil.ignore_patterns(".fsdp_unpatch_cache"))
    run = _console("check", "--no-cache", "--output-format", "concise", "legacy_project", cwd=tmp_path, env=ZH_LOCALE)
    printed = [re.sub(r"耗时 \d+\.\d\d 秒", "耗时 N.NN 秒", line) for line in run.stdout.splitlines()]
    assert shown == [printed[0], printed[-1]]
    assert "English | [简体中文](README.zh-CN.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_add_noqa_and_clean_speak_chinese(example: Path) -> None:
    marked = cli("check", "--add-noqa", "--no-cache", ".", cwd=example, env=ZH_LOCALE)
    assert marked.returncode == 0
    assert marked.stderr.decode().splitlines()[-1] == "已在 2 个文件中加入 9 条 noqa 指令。"
    cleaned = cli("clean", ".", cwd=example, env=ZH_LOCALE)
    assert cleaned.returncode == 0
    assert cleaned.stdout.decode() == f"{example / '.fsdp_unpatch_cache'} 处没有缓存\n"


def test_the_target_torch_and_its_warnings_in_chinese(example: Path) -> None:
    flagged = cli("check", "--no-cache", "--target-torch", "2.9", ".", cwd=example, env=ZH_LOCALE)
    assert "目标 torch 2.9（--target-torch）。" in _summary(flagged)
    pyproject = example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + '\n[tool.fsdp-unpatch]\ntarget-torch = "2.10"\n')
    assert "目标 torch 2.10（配置）。" in _summary(cli("check", "--no-cache", ".", cwd=example, env=ZH_LOCALE))
