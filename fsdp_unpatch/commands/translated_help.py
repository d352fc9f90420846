"""`--help` in the reader's language, translated as click writes it.

click builds each command's help from English strings given at import (docstrings, `help=`); this
formatter looks each one up in the catalog as it writes it (the usage prefix, headings, the command's text,
each option's help and click's `[default: ...]` note), so that no module needs to know the language when
it is imported.
"""

from __future__ import annotations

import inspect
import re
from typing import Iterable, Optional

import click

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import N_

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
_EXTRA = re.compile(r"^(?P<help>.*?)(?P<extra>  \[[^\[\]]*\])?$", re.DOTALL)


def _extra(extra: str) -> str:
    """click's `  [default: full]` note, its words translated, its values kept."""
    inner = extra.strip()[1:-1]
    parts = []
    for part in inner.split("; "):
        word, colon, value = part.partition(":")
        if not colon:
            parts.append(i18n.gettext(part))
            continue
        label = i18n.gettext(word + colon)
        parts.append(label + (value.lstrip() if label.endswith("：") else value))  # no space after `：`
    return f"  [{'; '.join(parts)}]"


def translated_help(text: str) -> str:
    match = _EXTRA.match(text)
    if match is None or not match.group("extra"):
        return i18n.gettext(text)
    return i18n.gettext(match.group("help")) + _extra(match.group("extra"))


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
        super().write_text(i18n.gettext(text))

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
