"""The catalog of FSDP2 targets and rules, loaded from `data/catalog.toml`."""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11
    import tomli as tomllib

CATALOG_PATH = Path(__file__).parent / "data" / "catalog.toml"
CATEGORIES = ("remove", "review", "keep", "error")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    category: str
    fix: str  # "safe", "unsafe" or "none"
    summary: str
    explanation: str


@dataclass(frozen=True)
class Target:
    id: str
    category: str
    native: str
    why: str
    native_since: str | None = None
    fingerprint: str | None = None


@dataclass(frozen=True)
class PatchModule:
    name: str
    installers: tuple[str, ...]
    enhance_installers: tuple[str, ...]
    replacements: Mapping[str, str]  # replacement function name -> target id


@dataclass(frozen=True)
class Catalog:
    version: str
    newest_torch: str
    fsdp2_roots: tuple[str, ...]
    tokens: tuple[str, ...]
    classes: Mapping[str, str]
    targets: Mapping[str, Target]
    rules: Mapping[str, Rule]
    patch_modules: Mapping[str, PatchModule]

    def rule(self, code: str) -> Rule:
        return self.rules[code]

    @property
    def enhance_installers(self) -> frozenset[str]:
        return frozenset(n for m in self.patch_modules.values() for n in m.enhance_installers)


def _parse(data: dict) -> Catalog:
    meta = data["catalog"]
    targets = {
        target_id: Target(
            id=target_id,
            category=entry["category"],
            native=entry["native"],
            why=entry["why"].strip(),
            native_since=entry.get("native_since"),
            fingerprint=entry.get("fingerprint"),
        )
        for target_id, entry in data.get("targets", {}).items()
    }
    rules = {
        code: Rule(
            code=code,
            name=entry["name"],
            category=entry["category"],
            fix=entry["fix"],
            summary=entry["summary"],
            explanation=entry["explanation"].strip(),
        )
        for code, entry in data.get("rules", {}).items()
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
        rules=rules,
        patch_modules=patch_modules,
    )


@functools.lru_cache(maxsize=None)
def load_catalog(path: Path = CATALOG_PATH) -> Catalog:
    with open(path, "rb") as handle:
        return _parse(tomllib.load(handle))
