"""Options of the per-file analysis (light: the command line builds them before anything is parsed)."""

from __future__ import annotations

from dataclasses import dataclass

from fsdp_unpatch.catalog.versions import Version


@dataclass(frozen=True)
class Options:
    target_torch: Version
    keep: frozenset[str] = frozenset()  # target ids the project declares intentional
