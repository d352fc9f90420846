"""Options of the per-file analysis (light: the command line builds them before anything is parsed)."""

from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def releases(self) -> tuple[Version, ...]:
        return self.torch_releases or (self.target_torch,)
