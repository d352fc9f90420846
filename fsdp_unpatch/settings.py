"""The settings of one run, from command-line flags (and, later, the configuration file)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence


class SettingsError(Exception):
    """A bad flag or configuration value; the message names it."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("FSU",)
    ignore: tuple[str, ...] = ()
    target_torch: Optional[str] = None
    keep: frozenset[str] = field(default_factory=frozenset)

    def is_selected(self, code: str, path: str = "") -> bool:
        """ruff's rule: the longest matching prefix of select or ignore wins; ties go to ignore."""
        chosen = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return chosen >= 0 and chosen > ignored


def parse_codes(values: Sequence[str], option: str, known: Sequence[str]) -> tuple[str, ...]:
    """`--select FSU001,FSU1` -> ("FSU001", "FSU1"); every entry must prefix a known code."""
    codes = []
    for value in values:
        for code in value.split(","):
            code = code.strip().upper()
            if not code:
                continue
            if code != "ALL" and not any(k.startswith(code) for k in known):
                raise SettingsError(f"{option}: unknown rule code or prefix {code!r}")
            codes.append("FSU" if code == "ALL" else code)
    return tuple(codes)
