"""What a file's install sites patch, and FSDP2's by-name bindings: the facts the patch-completeness rules
read (FSU401 `stale_by_name_import.py`, FSU402 `redundant_class_patch.py`, FSU403/404 `op_default_*.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fsdp_unpatch.catalog import ByNameImport, Catalog
from fsdp_unpatch.catalog.symbols import load_symbols, parse_releases
from fsdp_unpatch.catalog.versions import Version

if TYPE_CHECKING:  # the `ast` model's sites stand in for these (`ast_findings.py`): no libcst loaded for it
    from fsdp_unpatch.analysis.collect import RawInstall


@dataclass(frozen=True)
class Patched:
    """One install site with what it patches: `qualified` as spelled (resolved), `target` canonical."""

    install: RawInstall
    qualified: str
    target: str


@dataclass(frozen=True)
class Incomplete:
    """An FSU401 finding-to-be: `site` patches one binding, `missing` (a target id) is not patched."""

    site: Patched
    missing: str
    message: str


def _active(entry: ByNameImport, version: Version) -> bool:
    if Version.parse(entry.since) > version:
        return False
    return entry.until is None or version <= Version.parse(entry.until)


def by_name_counterparts(catalog: Catalog, version: Version) -> dict[str, list[tuple[str, str]]]:
    """target id -> [(counterpart target id, why the counterpart matters)] for the torch version."""
    out: dict[str, list[tuple[str, str]]] = {}
    entries = [e for e in catalog.by_name_imports if _active(e, version)]
    if not entries:  # older than every known release: the oldest facts are the best guess
        oldest = min((Version.parse(e.since) for e in catalog.by_name_imports), default=None)
        entries = [e for e in catalog.by_name_imports if oldest is not None and _active(e, oldest)]
    for e in entries:
        source, importer = f"{e.source}.{e.name}", f"{e.module}.{e.name}"
        out.setdefault(source, []).append(
            (importer, f"`{e.module}` imported `{e.name}` by name and keeps using the original")
        )
        out.setdefault(importer, []).append(
            (source, f"`{e.source}.{e.name}` itself, and every other module that reaches it, keeps the original")
        )
    return out


def is_read(catalog: Catalog, binding: str, version: Version) -> bool:
    """Whether FSDP2's code of the torch release (clamped to the known ones) reads the binding
    ("module.name"); True when the catalog does not know."""
    readers = catalog.callers.get(binding)
    if readers is None:
        return True
    minors = load_symbols().minors
    release = min(max(version, Version.parse(minors[0])), Version.parse(minors[-1]))
    return any(str(release) in parse_releases(text, minors) for text in readers.values())


def op_parts(target: str) -> tuple[str | None, bool]:
    """(the op packet `ops.<ns>.<op>`, whether the target is its `.default`) for an op target; (None,
    False) for any other target."""
    parts = target.split(".")
    if parts[0] != "ops":
        return None, False
    if len(parts) == 3:
        return target, False
    if len(parts) == 4 and parts[3] == "default":
        return ".".join(parts[:3]), True
    return None, False
