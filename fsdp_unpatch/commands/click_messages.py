"""click's own error messages in the reader's language.

click marks its messages for gettext (`from gettext import gettext as _` in each of its modules) but ships
no catalog, and the standard library's lookup follows the process locale, not `--lang`. `install` points
those module-level names at this tool's catalog, which carries the messages a user of the command line
meets (below, by their English text as click spells it). A message click adds in a later release stays
English until it is listed here: nothing breaks, nothing is guessed.
"""

from __future__ import annotations

import importlib
import re

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import N_, N_plural

# click's modules that translate with `_` (and `ngettext`) at the time a message is made
_MODULES = ("click.core", "click.exceptions", "click.parser", "click.types", "click.decorators", "click.termui")

# What click says on a usage error (click 8.1 to 8.5), extracted into the catalog from here.
MESSAGES = (
    N_("Error: {message}"),
    N_("Try '{command} {option}' for help."),
    N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"),
    N_("Missing argument"),
    N_("Missing option"),
    N_("Missing parameter"),
    N_("Missing {param_type}"),
    N_("Missing parameter: {param_name}"),
    N_("No such option {name!r}."),
    N_("No such option: {name}"),
    N_("No such command {name!r}."),
    N_("Missing command."),
    N_("Could not open file {filename!r}: {message}"),
    N_("Option {name!r} does not take a value."),
    N_("Argument {name!r} takes {nargs} values."),
    N_("Choose from:\n\t{choices}"),
    N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("file"),
    N_("directory"),
    N_("path"),
    N_("{name} {filename!r} does not exist."),
    N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."),
    N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."),
    N_("Aborted!"),
)
# (singular, plural) pairs click passes to `ngettext`
PLURALS = (
    N_plural("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)"),
    N_plural("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments."),
    N_plural("{value!r} is not {choice}.", "{value!r} is not one of {choices}."),
    N_plural("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"),
)


def install() -> None:
    """From now on click's messages are looked up in this tool's catalog, in the language `i18n` chose."""
    for name in _MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # a click without that module: its messages stay as click writes them
            continue
        if hasattr(module, "_"):
            module._ = i18n.gettext  # type: ignore[attr-defined]
        if hasattr(module, "ngettext"):
            module.ngettext = i18n.ngettext  # type: ignore[attr-defined]
    _full_stop_after_missing()


# "Missing option '--to'." : click writes the period itself, after the translated words and the option's name
_MISSING = re.compile(r"^(?P<head>[^.'\s]*(?: '[^']*'(?: / '[^']*')*)?)\. ?")


def _full_stop_after_missing() -> None:
    """A missing parameter's message ends its first sentence with `。` in Chinese, not click's `.`."""
    import click

    original = click.MissingParameter.format_message
    if getattr(original, "full_stop", False):
        return

    def format_message(self) -> str:
        text = original(self)
        if i18n.language() != i18n.CHINESE:
            return text
        return _MISSING.sub(lambda match: match.group("head") + "。", text, count=1)

    format_message.full_stop = True  # type: ignore[attr-defined]
    click.MissingParameter.format_message = format_message  # type: ignore[method-assign]
