"""Options of the per-file analysis (light: the command line builds them before anything is parsed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from fsdp_unpatch.catalog.versions import Version


@dataclass(frozen=True)
class Options:
    target_torch: Version  # the lowest release the run must be right on: every removal must be safe there
    keep: frozenset[str] = frozenset()  # target ids the project declares intentional
    # Every release the project allows that the catalog knows, oldest first (a declared range); empty: only
    # `target_torch`.
    torch_releases: tuple[Version, ...] = ()
    # Rules deselected for every file (`--select`, `--ignore`): their checks do not run at all.
    deselected: frozenset[str] = frozenset()
    # The target is newer than every release known: the newest known release, which the run judges it as.
    judged_as: Optional[Version] = None

    @property
    def releases(self) -> tuple[Version, ...]:
        return self.torch_releases or (self.target_torch,)

    @property
    def proof_releases(self) -> tuple[Version, ...]:
        """The releases a proof names its match in: the target's, a release newer than every known one judged
        as the newest known (a copy of 2.14.1's body matches "torch 2.14.1" in a run that targets 2.16)."""
        if self.judged_as is None:
            return self.releases
        return tuple(dict.fromkeys(min(release, self.judged_as) for release in self.releases))
