"""The settings of one run: command-line flags over the configuration file over the defaults."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from fsdp_unpatch.i18n import gettext as _

if TYPE_CHECKING:
    import pathspec


class SettingsError(Exception):
    """A bad flag or configuration value; the message names it."""


@functools.cache
def _glob(pattern: str) -> pathspec.PathSpec:
    from fsdp_unpatch.config.exclusion import compile_patterns

    return compile_patterns([pattern])


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("FSU",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    # (glob, codes): codes not reported for files the glob matches (relative to `root`, like ruff).
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: Optional[tuple[str, ...]] = None  # None: the default folder names (discovery.SKIPPED_DIRS)
    extend_exclude: tuple[str, ...] = ()
    target_torch: Optional[str] = None
    keep: frozenset[str] = field(default_factory=frozenset)
    respect_gitignore: bool = True
    force_exclude: bool = False
    # Rules whose fixes are applied and counted (ruff's `fixable`/`unfixable`: a code in both is unfixable).
    fixable: tuple[str, ...] = ("FSU",)
    unfixable: tuple[str, ...] = ()
    root: str = "."  # the project root: the configuration file's folder, else the current folder
    config: Optional[str] = None  # the configuration file read, if any
    lang: Optional[str] = None  # the configuration's language ("en", "zh-CN"); `--lang` and the locale otherwise
    # `fix --report`: "ascend" or "plain" (None: ascend in Chinese, else plain), and the design document's link
    report_template: Optional[str] = None
    design_doc: Optional[str] = None

    def is_selected(self, code: str, path: str = "") -> bool:
        """ruff's rule: the longest matching prefix of select or ignore wins; ties go to ignore.

        Per-file ignores then drop the codes they name for the files their glob matches.
        """
        chosen = max((len(p) for p in self.select + self.extend_select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        if not (chosen >= 0 and chosen > ignored):
            return False
        if path and self.per_file_ignores:
            relative = self.relative(path)
            for glob, codes in self.per_file_ignores:
                if any(code.startswith(c) for c in codes) and _glob(glob).match_file(relative):
                    return False
        return True

    def is_fixable(self, code: str) -> bool:
        """Whether `code`'s fixes may be applied: a prefix in `fixable` names it and none in `unfixable` does."""
        return any(code.startswith(p) for p in self.fixable) and not any(code.startswith(p) for p in self.unfixable)

    def relative(self, path: str) -> str:
        """`path` relative to the project root, with `/` (as written for globs); absolute when outside it."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(os.path.abspath(self.root)).as_posix()
        except ValueError:
            return absolute.as_posix()

    def exclusion(self):
        from fsdp_unpatch.config.exclusion import Exclusion

        return Exclusion(Path(self.root), self.exclude, self.extend_exclude, self.respect_gitignore)


def parse_codes(values: Sequence[str], option: str, known: Sequence[str]) -> tuple[str, ...]:
    """`--select FSU001,FSU1` -> ("FSU001", "FSU1"); every entry must prefix a known code."""
    codes = []
    for value in values:
        for code in value.split(","):
            code = code.strip().upper()
            if not code:
                continue
            if code != "ALL" and not any(k.startswith(code) for k in known):
                raise SettingsError(
                    _("{option}: unknown rule code or prefix {code}").format(option=option, code=repr(code))
                )
            codes.append("FSU" if code == "ALL" else code)
    return tuple(codes)


def parse_per_file_ignores(
    values: Sequence[str], option: str, known: Sequence[str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`--per-file-ignores 'tests/*:FSU3,FSU202'` -> (("tests/*", ("FSU3", "FSU202")),), ruff's syntax."""
    entries = []
    for value in values:
        glob, colon, codes = value.rpartition(":")
        if not colon or not glob.strip() or not codes.strip():
            raise SettingsError(
                _("{option}: expected GLOB:CODES (such as 'tests/*:FSU3'), not {value}").format(
                    option=option, value=repr(value)
                )
            )
        entries.append((glob.strip(), parse_codes([codes], f"{option} for {glob.strip()!r}", known)))
    return tuple(entries)
