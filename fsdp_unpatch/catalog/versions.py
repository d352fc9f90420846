"""The torch release a migration targets: `--target-torch`, else the installed torch, else the newest known."""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass
from typing import Optional

_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> Version:
        """ "2.13", "2.13.0", "2.13.0+cpu" -> Version(2, 13)."""
        match = _VERSION.match(text)
        if match is None:
            raise ValueError(f"not a torch version: {text!r} (expected MAJOR.MINOR, e.g. 2.13)")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def installed_torch() -> Optional[Version]:
    """The installed torch's version from package metadata; torch itself is never imported."""
    try:
        return Version.parse(importlib.metadata.version("torch"))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def target_torch(requested: Optional[str], newest_known: str) -> tuple[Version, str]:
    """The version to target and where it came from ("option", "installed torch", "catalog")."""
    if requested:
        return Version.parse(requested), "option"
    installed = installed_torch()
    if installed is not None:
        return installed, "installed torch"
    return Version.parse(newest_known), "catalog"
