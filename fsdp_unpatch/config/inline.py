"""`--config`, as ruff takes it: each value is a configuration file or one inline `KEY = VALUE` TOML setting.

    fsdp-unpatch check --config ci.toml --config 'select = ["FSU0"]' --config "target-torch = '2.9'"

A value that names an existing file is the file (at most one); any other value must parse as TOML with
exactly one key. The settings override the file's (or the discovered configuration's) values, key by key;
command-line flags still win over them.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from fsdp_unpatch.config.settings import SettingsError
from fsdp_unpatch.i18n import gettext as _


def label(value: str) -> str:
    """How an inline setting is named in messages: the option and the value as typed."""
    return f"--config '{value}'"


def one_file_at_most(*files: str) -> str:
    return _("--config: one configuration file at most, not {files}").format(files=_(" and ").join(files))


def _toml(value: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(value)
    except tomllib.TOMLDecodeError as error:
        if "=" not in value:  # a path that is not there (or not a file), most likely
            problem = _("a folder, not a configuration file") if os.path.isdir(value) else _("no such file")
            raise SettingsError(_("--config {value}: {problem}").format(value=value, problem=problem)) from None
        raise SettingsError(
            _("{option}: neither a file nor a valid `KEY = VALUE` TOML setting ({error})").format(
                option=label(value), error=error
            )
        ) from None


def split(values: Sequence[str]) -> tuple[Optional[str], list[tuple[str, dict]]]:
    """(the configuration file named, if any; each inline setting with the one-key table it parses to)."""
    files = [value for value in values if os.path.isfile(value)]
    if len(files) > 1:
        raise SettingsError(one_file_at_most(*files))
    settings = []
    for value in values:
        if value in files:
            continue
        table = _toml(value)
        if len(table) != 1:
            raise SettingsError(
                _("{option}: give one `KEY = VALUE` setting a --config, not {count}").format(
                    option=label(value), count=len(table)
                )
            )
        settings.append((value, table))
    return (files[0] if files else None), settings
