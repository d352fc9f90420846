"""`--help` in the reader's language, translated as click writes it.

click builds each command's help from English strings given at import (docstrings, `help=`); this
formatter looks each one up in the catalog as it writes it (the usage prefix, headings, the command's text,
each option's help and click's `[default: ...]` note), so that no module needs to know the language when
it is imported.

Chinese paragraphs are wrapped here, not by click: click joins the lines of a paragraph with a space and
breaks only at spaces, which leaves a stray space wherever the translation had a line break between Chinese
characters, and counts a Chinese character as one column where a terminal gives it two.
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from typing import Iterable, Optional

import click

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import N_
from fsdp_unpatch.lazy_re import LazyPattern

# click's own words in a help page (click does not translate them itself)
CLICK_WORDS = (
    N_("Usage:"),
    N_("Options"),
    N_("Commands"),
    N_("Show this message and exit."),
    N_("Show the version and exit."),
    N_("default:"),
    N_("required"),
)
# the note stands after the help, or alone (an option without help: `[default: 0]`)
_EXTRA = LazyPattern(r"^(?P<help>.*?)(?P<extra>(?:^|  )\[[^\[\]]*\])?$", re.DOTALL)
CJK = LazyPattern("[\u3400-\u9fff\uff00-\uffef\u3000-\u303f“”‘’…]")
# full-width punctuation that may not begin a line, and what may not end one (the Chinese rule of line breaks)
NOT_FIRST = set("，。、；：？！）】」』”’…%")
NOT_LAST = set("（【「『“‘")


def _extra(extra: str) -> str:
    """click's `  [default: full]` note, its words translated, its values kept (in Chinese, in full-width
    brackets, its parts apart by `；`)."""
    lead = extra[: len(extra) - len(extra.lstrip())]
    inner = extra.strip()[1:-1]
    parts = []
    for part in inner.split("; "):
        word, colon, value = part.partition(":")
        if not colon:
            parts.append(i18n.gettext(part))
            continue
        label = i18n.gettext(word + colon)
        parts.append(label + (value.lstrip() if label.endswith("：") else value))  # no space after `：`
    if i18n.language() == i18n.CHINESE:
        return f"{lead}［{'；'.join(parts)}］"
    return f"{lead}[{'; '.join(parts)}]"


def translated_help(text: str) -> str:
    match = _EXTRA.match(text)
    if match is None or not match.group("extra"):
        return i18n.gettext(text)
    help_text, extra = i18n.gettext(match.group("help")), _extra(match.group("extra"))
    if help_text and CJK.match(help_text[-1]):  # `。［默认：2］`: no space beside full-width punctuation
        extra = extra.lstrip()
    return help_text + extra


class TranslatedFormatter(click.HelpFormatter):
    def write_usage(self, prog: str, args: str = "", prefix: Optional[str] = None) -> None:
        if prefix is None:  # a full-width colon (Chinese) takes no space after it
            word = i18n.gettext("Usage:")
            prefix = word if word.endswith("：") else f"{word} "
        super().write_usage(prog, args, prefix)

    def write_heading(self, heading: str) -> None:
        translated = i18n.gettext(heading)  # click's own words come translated already (`click_messages.py`)
        if translated == heading and heading.isascii():
            super().write_heading(heading)
        else:  # click adds a half-width colon; Chinese takes the full-width one
            self.write(f"{'':>{self.current_indent}}{translated}：\n")

    def write_text(self, text: str) -> None:
        translated = i18n.gettext(text)
        if not CJK.search(translated):
            super().write_text(translated)
            return
        indent = " " * self.current_indent
        paragraphs = re.split(r"\n[ \t]*\n", translated.strip("\n"))
        for number, paragraph in enumerate(paragraphs):
            if number:
                self.write("\n")
            lines = paragraph.splitlines()
            if paragraph.startswith("\b") or any(line[:1].isspace() for line in lines):  # laid out by hand
                self.write("".join(f"{indent}{line}\n" for line in lines if line != "\b"))
                continue
            for line in wrap_chinese(joined(lines), max(self.width - self.current_indent, 20)):
                self.write(f"{indent}{line}\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl([(term, translated_help(help)) for term, help in rows], col_max, col_spacing)


class TranslatedContext(click.Context):
    formatter_class = TranslatedFormatter


def translate_help_of(command: click.Command) -> click.Command:
    """Have `command` (and a group's commands) write its help through the formatter above."""
    command.context_class = TranslatedContext
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            translate_help_of(sub)
            _short_help_translated(sub)
    return command


def _short_help_translated(command: click.Command) -> None:
    """A group's list of commands shows each one's short help; without a `short_help`, click cuts the English
    help to its first sentence, which the catalog does not hold: this takes the translated help's instead."""
    english = command.get_short_help_str

    def short_help(limit: int = 45) -> str:
        if i18n.language() == i18n.ENGLISH or command.short_help or not command.help:
            return english(limit)
        text = inspect.cleandoc(command.help).partition("\f")[0]
        translated = i18n.gettext(text)
        if translated == text:
            return english(limit)
        return translated.split("。", 1)[0] + "。" if "。" in translated else translated

    command.get_short_help_str = short_help  # type: ignore[method-assign]


def _width(text: str) -> int:
    """Terminal columns: two for a wide (Chinese, full-width) character."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def joined(lines: list[str]) -> str:
    """A paragraph's lines as one: no space where Chinese meets the break, one space between other words."""
    out = ""
    for line in (line.strip() for line in lines):
        if out and line and not (CJK.match(out[-1]) or CJK.match(line[0])):
            out += " "
        out += line
    return out


def wrap_chinese(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns, broken between Chinese characters or at a space, never inside
    a word or a code span; full-width closing punctuation never begins a line, opening punctuation never ends
    one (a line may then be a character wider)."""
    units = re.findall(r"`[^`]*`|[\u3400-\u9fff\uff00-\uffef\u3000-\u303f“”‘’…]| +|[^\s`\u3400-\u9fff]+|`", text)
    lines: list[str] = []
    line = ""
    for unit in units:
        if unit.isspace():
            line += " " if line else ""
            continue
        if line and _width(line.rstrip()) + _width(unit) > width and unit[0] not in NOT_FIRST:
            carried = ""
            while line and line.rstrip()[-1:] in NOT_LAST:  # `（` goes down with what it opens
                carried, line = line.rstrip()[-1] + carried, line.rstrip()[:-1]
            lines.append(line.rstrip())
            line = carried
        line += unit
    if line.strip():
        lines.append(line.rstrip())
    return [entry for entry in lines if entry]
