"""The torch releases a migration targets: `--target-torch` (or the `target-torch` key), else the torch the
project declares, else the installed torch, else the newest known release."""

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


def known_releases(oldest: str, newest: str) -> tuple[Version, ...]:
    """Every minor release from `oldest` to `newest` (torch 2 has one major)."""
    low, high = Version.parse(oldest), Version.parse(newest)
    return tuple(Version(low.major, minor) for minor in range(low.minor, high.minor + 1)) if low <= high else ()


@dataclass(frozen=True)
class TargetTorch:
    """The releases a run must be right on (oldest first), and where they came from."""

    releases: tuple[Version, ...]
    origin: str  # "--target-torch", "configuration", "pyproject.toml: torch>=2.6", "installed torch", "newest known"

    @property
    def lowest(self) -> Version:
        """What every removal must be safe on: a range is only as safe as its lowest release."""
        return self.releases[0]

    def __str__(self) -> str:
        if len(self.releases) == 1:
            return str(self.lowest)
        return f"{self.lowest} to {self.releases[-1]}"


def installed_version() -> Optional[str]:
    """The installed torch's full version from package metadata ("2.13.0+cpu"); torch is never imported."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_torch() -> Optional[Version]:
    """The installed torch's release, from package metadata."""
    try:
        return Version.parse(installed_version() or "")
    except ValueError:
        return None


def target_torch(requested: Optional[str], newest_known: str) -> tuple[Version, str]:
    """Without a project (libcst's codemod runner): `requested`, else the installed torch, else the newest
    known release; and where it came from."""
    if requested:
        return Version.parse(requested), "--target-torch"
    installed = installed_torch()
    if installed is not None:
        return installed, "installed torch"
    return Version.parse(newest_known), "newest known"
