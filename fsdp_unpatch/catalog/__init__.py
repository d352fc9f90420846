"""The catalog of FSDP2 targets, loaded from `data/catalog.toml`.

The rules that report on them are declared in `fsdp_unpatch/rules/` (`rules.registry`); `Catalog.rules`
and `Catalog.rule` read that registry, for the callers that hold a catalog.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from fsdp_unpatch.rules.registry import Rule

CATALOG_PATH = Path(__file__).resolve().parent.parent / "data" / "catalog.toml"


@dataclass(frozen=True)
class Target:
    id: str
    category: str
    native: str
    why: str
    native_since: str | None = None  # first torch release whose native path serves non-CUDA devices here
    fingerprint: str | None = None
    since: str | None = None  # first torch minor release that has the symbol
    until: str | None = None  # last torch minor release that has it (None: still in the newest)

    @property
    def versions(self) -> str:
        """ "torch 2.5+" or "torch 2.4-2.11" (empty when unknown)."""
        if self.since is None:
            return ""
        return f"torch {self.since}-{self.until}" if self.until else f"torch {self.since}+"


@dataclass(frozen=True)
class ByNameImport:
    """`module` binds `name` with `from .<source> import <name>` (in torch `since`..`until`)."""

    module: str
    source: str
    name: str
    since: str
    until: str | None = None


@dataclass(frozen=True)
class PatchModule:
    name: str
    installers: tuple[str, ...]
    enhance_installers: tuple[str, ...]
    replacements: Mapping[str, str]  # replacement function name -> target id
    # A module an earlier fix of this project changed (`run/memory.py`): its file, which alone is that module.
    path: Optional[str] = None


@dataclass(frozen=True)
class Catalog:
    version: str
    newest_torch: str
    fsdp2_roots: tuple[str, ...]
    tokens: tuple[str, ...]
    classes: Mapping[str, str]
    targets: Mapping[str, Target]
    patch_modules: Mapping[str, PatchModule]
    by_name_imports: tuple[ByNameImport, ...] = ()
    # FSDP2's family outside its package: module id -> qualified module (`replicate_with_fsdp`).
    family_modules: Mapping[str, str] = field(default_factory=dict)
    # binding ("module.name") -> FSDP2 module whose code reads it -> releases text (`symbols.format_releases`)
    callers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    oldest_torch: str = "2.4"  # the oldest torch release with FSDP2
    newest_release: str = ""  # the newest release of the bundled upstream data ("2.14.1"): `newest_torch`'s newest

    @property
    def rules(self) -> Mapping[str, Rule]:
        """Every rule, by code (the rule registry)."""
        from fsdp_unpatch.rules.registry import all_rules

        return all_rules()

    def rule(self, code: str) -> Rule:
        return self.rules[code]

    def twin_of(self, target: Optional[str]) -> Optional[str]:
        """`_fsdp_param_group.foreach_reduce` -> `_fsdp_collectives.foreach_reduce` (and back): the other
        module-level binding of a name one FSDP2 module imported by name from another."""
        if target is None:
            return None
        for entry in self.by_name_imports:
            if f"{entry.module}.{entry.name}" == target:
                return f"{entry.source}.{entry.name}"
            if f"{entry.source}.{entry.name}" == target:
                return f"{entry.module}.{entry.name}"
        return None

    @property
    def enhance_installers(self) -> frozenset[str]:
        return frozenset(n for m in self.patch_modules.values() for n in m.enhance_installers)


def _area(target_id: str, areas: Mapping[str, str], classes: Mapping[str, str]) -> str:
    """The area a target belongs to: its class when it is a method of a known class, else its module."""
    parts = target_id.split(".")
    if len(parts) >= 3 and parts[1] in classes and parts[1] in areas:
        return parts[1]
    return parts[0]


def _parse(data: dict) -> Catalog:
    meta = data["catalog"]
    areas = data.get("areas", {})
    classes = data.get("classes", {})
    targets = {
        target_id: Target(
            id=target_id,
            category=entry["category"],
            native=entry["native"],
            why=(entry.get("why") or areas[_area(target_id, areas, classes)]).strip(),
            native_since=entry.get("native_since"),
            fingerprint=entry.get("fingerprint"),
            since=entry.get("since"),
            until=entry.get("until"),
        )
        for target_id, entry in data.get("targets", {}).items()
    }
    patch_modules = {
        name: PatchModule(
            name=name,
            installers=tuple(entry.get("installers", ())),
            enhance_installers=tuple(entry.get("enhance_installers", ())),
            replacements=dict(entry.get("replacements", {})),
        )
        for name, entry in data.get("patch_modules", {}).items()
    }
    return Catalog(
        version=meta["version"],
        newest_torch=meta["newest_torch"],
        fsdp2_roots=tuple(meta["fsdp2_roots"]),
        tokens=tuple(meta["tokens"]),
        classes=dict(data.get("classes", {})),
        targets=targets,
        patch_modules=patch_modules,
        by_name_imports=tuple(
            ByNameImport(e["module"], e["source"], e["name"], e["since"], e.get("until"))
            for e in data.get("by_name_imports", ())
        ),
        family_modules=dict(meta.get("family_modules", {})),
        callers={binding: dict(readers) for binding, readers in data.get("callers", {}).items()},
        oldest_torch=meta["oldest_torch"],
        newest_release=meta.get("newest_release") or meta["newest_torch"],
    )


@functools.cache
def load_catalog(path: Path = CATALOG_PATH) -> Catalog:
    from fsdp_unpatch.data import read_data

    return _parse(read_data(path))


def first_sentence(text: str) -> str:
    """A target's `why`, first sentence, to follow a semicolon (FSU101's message, and its translation)."""
    sentence = " ".join(text.split()).split(". ")[0].rstrip(".")
    if sentence[:1].isupper() and not sentence[1:2].isupper():
        sentence = sentence[0].lower() + sentence[1:]
    return sentence
