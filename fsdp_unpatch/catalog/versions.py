"""The torch releases a migration targets: `--target-torch` (or the `target-torch` key), else the torch the
project declares, else the installed torch, else the newest known release."""

from __future__ import annotations

import importlib.machinery
import os
import re
import sys
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
            from fsdp_unpatch.i18n import Phrase

            raise ValueError(Phrase("not a torch version: {text} (expected MAJOR.MINOR, e.g. 2.13)", text=repr(text)))
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
    # The target is newer than every release known (bundled or learnt): the newest known release ("2.14.1"),
    # whose FSDP2 the run judges by. None: the target is a known release.
    judged_as: Optional[str] = None

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
    found, version = _dist_info_version("torch")
    if found:
        return version
    import importlib.metadata  # an egg, a zip or a custom finder: the general answer, at its import's cost

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def _dist_info_version(name: str) -> tuple[bool, Optional[str]]:
    """(True, version) from the first `<name>-*.dist-info/METADATA` in a folder of `sys.path`, which is what
    importlib.metadata finds first; (True, None) when no folder has one and nothing else could: importing
    importlib.metadata costs more than a whole run that finds nothing. (False, None): ask it."""
    others = (finder for finder in sys.meta_path if finder is not importlib.machinery.PathFinder)
    if any(hasattr(finder, "find_distributions") for finder in others):
        return False, None  # a finder of its own can hold distributions
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):  # a zip archive
                return False, None
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for child in names:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            # importlib.metadata's normalisation: the name before the first "-", runs of -_. as one "_"
            if re.sub(r"[-_.]+", "_", low.rpartition(".")[0].partition("-")[0]) != name:
                continue
            if low.endswith(".egg-info"):
                return False, None
            return True, _metadata_version(os.path.join(folder, child, "METADATA"))
    return True, None


def _metadata_version(path: str) -> Optional[str]:
    """The `Version:` header of a METADATA file (its headers end at the first empty line)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                if key.strip().lower() == "version":
                    return value.strip()
    except OSError:
        pass
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
