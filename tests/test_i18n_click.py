"""click's usage errors speak the chosen language (issue 31 item 4): click marks its messages for gettext but
ships no catalog; `commands/click_messages.py` points them at this tool's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration import cli

MISTAKES = [
    (["check", "--bogus"], "没有选项 '--bogus'", "No such option '--bogus'"),
    (["chek"], "没有命令 'chek'", "No such command 'chek'"),
    (["check", "--output-format", "nope"], "'--output-format' 的值无效", "Invalid value for '--output-format'"),
    (["check", "--jobs"], "选项 '--jobs' 需要 1 个参数", "Option '--jobs' requires an argument"),
    (["check", "--jobs", "many"], "不是有效的", "is not a valid integer"),
]


@pytest.mark.parametrize(("args", "chinese", "english"), MISTAKES)
def test_a_usage_error_in_chinese_and_in_english(args: list[str], chinese: str, english: str, tmp_path: Path) -> None:
    done = cli("--lang", "zh-CN", *args, cwd=tmp_path)
    text = done.stderr.decode()
    assert done.returncode == 2 and chinese in text, text
    assert "错误：" in text
    # click's words are gone; what stays English is the user's input, option names and click's type names
    prose = re.sub(r"'[^']*'|\bmain\b|\bcheck\b|\[OPTIONS\]|\[PATHS\]|COMMAND|\[ARGS\]|\.\.\.|integer range", "", text)
    assert not re.search(r"[A-Za-z]{4,}", prose), text
    done = cli("--lang", "en", *args, cwd=tmp_path)
    assert english in done.stderr.decode() and "Error: " in done.stderr.decode()
