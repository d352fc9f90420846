"""The last English prose of a Chinese run (issue 24, item 1): the catalog's reasons of every target (in
`explain TARGET` and FSU101's message), an output stream that cannot show Chinese, and an empty `--lang`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch import i18n
from tests.integration import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
ZH_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}
HAN = re.compile("[\u4e00-\u9fff]")

# An own dtype policy installed over a review target (FSU101, "reviewed": its message ends with the reason).
OVERRIDE = """\
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam


def _dtypes_from_the_policy_only(self, mp_policy):
    self.param_dtype = None
    self.reduce_dtype = mp_policy.reduce_dtype


FSDPParam.init_dtype_attrs = _dtypes_from_the_policy_only
"""


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language(i18n.ENGLISH)


def _english_prose(text: str) -> list[str]:
    """Runs of four or more English words outside code spans."""
    return re.findall(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}", re.sub(r"`[^`]*`", "", text))


def _targets():
    from fsdp_unpatch.catalog import load_catalog

    return load_catalog().targets


def test_every_targets_reason_is_in_the_message_catalog() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import i18n_catalog

    wanted = {message.id for message in i18n_catalog.template()}
    missing = sorted(t.id for t in _targets().values() if t.why.rstrip(".") not in wanted)
    assert missing == []


@pytest.mark.parametrize("category", ["review", "remove", "keep"])
def test_every_targets_reason_reads_in_chinese(category: str) -> None:
    i18n.set_language(i18n.CHINESE)
    reasons = {t.id: i18n.reason(t.why) for t in _targets().values() if t.category == category}
    assert reasons
    left = {target: text for target, text in reasons.items() if not HAN.search(text) or _english_prose(text)}
    assert left == {}
    i18n.set_language(i18n.ENGLISH)
    assert all(i18n.reason(t.why) == t.why for t in _targets().values())  # English is the catalog's own text


def test_explain_target_gives_the_reason_in_chinese(tmp_path: Path) -> None:
    target = "_fsdp_param.FSDPParam.init_dtype_attrs"
    english = cli("explain", target, cwd=tmp_path, env=NO_LOCALE).stdout.decode()
    assert english.rstrip("\n").endswith("Per-parameter dtype policies override it.")
    chinese = cli("explain", target, cwd=tmp_path, env=ZH_LOCALE).stdout.decode()
    assert (
        chinese.rstrip("\n").splitlines()[-1]
        == "按混合精度策略设置参数和归约的 dtype。按参数设置 dtype 的策略会覆写它。"
    )
    assert not _english_prose(chinese.split("\n\n", 1)[1])
    as_json = cli("explain", target, "--output-format", "json", cwd=tmp_path, env=ZH_LOCALE).stdout.decode()
    assert '"why": "Sets param/reduce dtypes from the mixed-precision policy.' in as_json  # machine formats: English


def test_an_unproven_overrides_reason_in_chinese(tmp_path: Path) -> None:
    (tmp_path / "own_policy.py").write_text(OVERRIDE, encoding="utf-8")
    english = cli("check", "--no-cache", "own_policy.py", cwd=tmp_path, env=NO_LOCALE).stdout.decode()
    # its release verdict (no release's body is close: its own code), then the reason
    verdict = "`_dtypes_from_the_policy_only` is close to the body of no torch release: its own code"
    assert english.splitlines()[0].endswith(
        f"(torch 2.4+); {verdict}; sets param/reduce dtypes from the mixed-precision policy"
    )
    chinese = cli("check", "--no-cache", "own_policy.py", cwd=tmp_path, env=ZH_LOCALE).stdout.decode()
    first = chinese.splitlines()[0]
    said = "`_dtypes_from_the_policy_only` 与任何 torch 版本的函数体都不接近：是它自己的代码"
    assert first.endswith(f"(torch 2.4+)；{said}；按混合精度策略设置参数和归约的 dtype"), first
    assert not _english_prose(first.split(" [review] ", 1)[1])


def test_every_review_targets_fsu101_message_reads_in_chinese() -> None:
    from fsdp_unpatch.catalog import first_sentence
    from fsdp_unpatch.reporting.localize import localized
    from fsdp_unpatch.rules.unproven_override import UNPROVEN_OVERRIDE

    i18n.set_language(i18n.CHINESE)
    left = {}
    for target in _targets().values():
        message = UNPROVEN_OVERRIDE.message(
            "reviewed", spelled="X.y", target=target.id, versions=" (torch 2.4+)", described=first_sentence(target.why)
        )
        said = localized(message)
        if _english_prose(said) or not HAN.search(said.split("；")[-1]):
            left[target.id] = said
    assert left == {}


# --- an output stream that cannot encode Chinese -------------------------------------------------------------------


def _console(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", *args],
        cwd=EXAMPLE,
        env={**os.environ, "NO_COLOR": "1", **env},
        capture_output=True,
    )


@pytest.mark.parametrize("chosen_by", ["flag", "locale"])
def test_a_stream_that_cannot_show_chinese_gets_english_and_one_warning(chosen_by: str) -> None:
    latin = {**(NO_LOCALE if chosen_by == "flag" else ZH_LOCALE), "PYTHONIOENCODING": "latin-1"}
    flag = ("--lang", "zh-CN") if chosen_by == "flag" else ()
    english = _console("check", "--no-cache", ".", env=NO_LOCALE)
    degraded = _console(*flag, "check", "--no-cache", ".", env=latin)
    assert degraded.returncode == english.returncode == 1
    assert degraded.stdout.splitlines()[:-1] == english.stdout.splitlines()[:-1]  # the last line holds a time
    warning = degraded.stderr.decode("latin-1").splitlines()
    assert len(warning) == 1 and re.fullmatch(
        r"fsdp-unpatch: warning: the output encoding \((latin-1|iso8859-1)\) cannot show Chinese; writing English "
        r"\(set PYTHONIOENCODING=utf-8 or use a UTF-8 locale to read zh-CN\)",
        warning[0],
    ), warning


def test_the_configurations_chinese_on_a_latin_stream_is_english_too(tmp_path: Path) -> None:
    project = tmp_path / "legacy_project"
    shutil.copytree(EXAMPLE, project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + '\n[tool.fsdp-unpatch]\nlang = "zh-CN"\n')
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--no-cache", "."],
        cwd=project,
        env={**os.environ, "NO_COLOR": "1", **NO_LOCALE, "PYTHONIOENCODING": "latin-1"},
        capture_output=True,
    )
    assert run.returncode == 1
    assert run.stdout.decode("latin-1").splitlines()[-1].startswith("Found 16 findings (9 remove, 7 keep) in 8 files.")
    assert len(run.stderr.splitlines()) == 1 and b"cannot show Chinese; writing English" in run.stderr


def test_a_path_the_stream_cannot_show_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "模块.py").write_text(OVERRIDE, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "--lang", "zh-CN", "check", "--no-cache", "模块.py"],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", **NO_LOCALE, "PYTHONIOENCODING": "latin-1"},
        capture_output=True,
    )
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(b"\\u6a21\\u5757.py:9:1: FSU101 [review] `FSDPParam.init_dtype_attrs` overrides")


def test_a_stream_that_cannot_show_chinese_does_not_change_english_runs() -> None:
    english = _console("check", "--no-cache", ".", env=NO_LOCALE)
    latin = _console("check", "--no-cache", ".", env={**NO_LOCALE, "PYTHONIOENCODING": "latin-1"})
    assert latin.returncode == english.returncode and latin.stderr == b""


# --- an empty --lang ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [("--lang", "", "check", "."), ("--lang=", "check", "."), ("check", ".", "--lang")])
def test_an_empty_lang_says_what_is_accepted(args: tuple[str, ...]) -> None:
    outcome = cli(*args, cwd=EXAMPLE, env=NO_LOCALE)
    assert outcome.returncode == 2
    assert (
        "--lang: no language given (choose one of: en, zh-CN; zh, zh_CN and en_US are accepted too)"
        in outcome.stderr.decode()
    )
    assert "unknown language ''" not in outcome.stderr.decode()
