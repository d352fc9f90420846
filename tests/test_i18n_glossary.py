"""The Chinese reads as one translator wrote it: the glossary's word for every domain term, no English term
left in a sentence, no term with two names, and Chinese typography (full-width punctuation, no stray spaces)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FOLDER = Path(__file__).resolve().parent.parent / "fsdp_unpatch" / "locale" / "zh_CN" / "LC_MESSAGES"
GLOSSARY = tomllib.loads((FOLDER / "glossary.toml").read_text(encoding="utf-8"))
CJK = r"\u3400-\u9fff"
FULL_WIDTH = "，。；：？！（）、“”"
# what is code or a name, not a word of the sentence: code blocks and spans, placeholders, options, paths
NOT_PROSE = re.compile(
    r"```.*?```|`[^`]*`|\{[^}]*\}|(?<![\w-])--?[\w-]+|[\w./*-]+\.(?:py|toml|md|json|sarif)\b|\bFSU\d+\b", re.DOTALL
)


def translations() -> list[tuple[str, str]]:
    with open(FOLDER / "fsdp_unpatch.po", "rb") as file:
        catalog = read_po(file)
    found = []
    for message in catalog:
        ids = message.id if isinstance(message.id, (tuple, list)) else (message.id,)
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        found.extend((ids[0], string) for string in strings if message.id and string)
    return found


def prose(text: str) -> str:
    return NOT_PROSE.sub("x", text)  # a stand-in word: the spaces around code stay as written


def english_terms(text: str) -> list[str]:
    return [term for term in GLOSSARY["terms"] if re.search(rf"(?<![\w-]){re.escape(term)}s?(?![\w-])", text, re.I)]


def second_names(text: str) -> list[str]:
    return sorted({word for entry in GLOSSARY["terms"].values() for word in entry.get("not", []) if word in text})


def test_the_glossary_gives_each_term_one_word_and_each_word_one_term() -> None:
    words = [entry["zh"] for entry in GLOSSARY["terms"].values()]
    assert len(words) == len(set(words))
    assert not set(words) & {word for entry in GLOSSARY["terms"].values() for word in entry.get("not", [])}


@pytest.mark.parametrize(
    "text, english, second",
    [
        ("集合通信 override 的 install site", ["override", "install site"], []),
        ("「enhance patch」与「enhance 补丁」", ["enhance patch", "enhance", "patch"], []),
        ("应用所有 safe 修复", [], []),
        ("覆盖了 `x`，而原生 FSDP2 现已覆盖它；待复查", [], ["复查", "覆盖"]),
        ("删除 `override` 的安装点", [], []),
    ],
)
def test_the_checks_catch_what_the_issue_names(text: str, english: list[str], second: list[str]) -> None:
    assert english_terms(prose(text)) == [t for t in GLOSSARY["terms"] if t in english]
    assert second_names(prose(text)) == second


def test_no_english_domain_term_in_a_translated_message() -> None:
    found = {msgstr[:80]: terms for _, msgstr in translations() if (terms := english_terms(prose(msgstr)))}
    assert found == {}


def test_no_term_has_two_chinese_names() -> None:
    found = {msgstr[:80]: words for _, msgstr in translations() if (words := second_names(prose(msgstr)))}
    assert found == {}


def typography_faults(text: str) -> list[str]:
    text = prose(text)
    faults = []
    if re.search(rf"[{CJK}{FULL_WIDTH}] +[{CJK}{FULL_WIDTH}]", text):
        faults.append("a space between Chinese characters")
    if re.search(rf"[{CJK}][,;:?!]|[,;:?!](?=[{CJK}])", text):
        faults.append("half-width punctuation in Chinese")
    if re.search(rf"\((?=[^)]*[{CJK}])[^)]*\)", text) or re.search(r"（[^）(]*\)|\([^)（]*）", text):
        faults.append("half-width or mixed brackets around Chinese")
    if re.search(rf" [{FULL_WIDTH}]|[{FULL_WIDTH}] ", text):
        faults.append("a space beside full-width punctuation")
    return faults


def test_the_typography_check_catches_stray_spaces_and_mixed_brackets() -> None:
    assert typography_faults("删除 覆写") and typography_faults("（见 x)") and typography_faults("注意:它")
    assert typography_faults("安装点 ，然后") and not typography_faults("删除 `x` 的安装点（见 FSU001）。")


def test_chinese_typography() -> None:
    found = {msgstr[:80]: faults for _, msgstr in translations() if (faults := typography_faults(msgstr))}
    assert found == {}
