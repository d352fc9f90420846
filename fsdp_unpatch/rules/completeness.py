"""Patch-completeness rules (FSU4xx): patches that do not reach every caller, bugs that shipped.

- FSU401: a name one FSDP2 module imported by name from another (`_fsdp_param_group` did
  `from ._fsdp_collectives import foreach_reduce`) is patched in one module only; the other module
  keeps calling what it imported. Only when FSDP2's code of the target release reads the unpatched
  binding (catalog `[callers]`). Decided per file, then dropped by the rule's run check
  (`stale_by_name_import.py`) when another file of the run patches the counterpart.
- FSU402: a class attribute patched through two modules: both names reach the same class object, so
  the second assignment is redundant (information, not a bug).
- FSU403 / FSU404: an op packet `torch.ops.<ns>.<op>` replaced without its `.default` overload, or
  `.default` assigned after the packet was replaced (it then lands on the replacement function).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from fsdp_unpatch.analysis.collect import RawInstall
from fsdp_unpatch.catalog import ByNameImport, Catalog
from fsdp_unpatch.catalog.symbols import load_symbols, parse_releases
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.rules.op_default_after_packet import OP_DEFAULT_AFTER_PACKET
from fsdp_unpatch.rules.op_default_not_replaced import OP_DEFAULT_NOT_REPLACED
from fsdp_unpatch.rules.stale_by_name_import import STALE_BY_NAME_IMPORT


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


def incomplete_by_name(patched: Iterable[Patched], catalog: Catalog, releases: Sequence[Version]) -> list[Incomplete]:
    """FSU401 candidates in one file: patched names whose by-name twin the file does not patch and
    FSDP2's code reads in one of the torch releases (an unread stale copy changes nothing). The message
    names the oldest such release."""
    patched = list(patched)
    done = {p.target for p in patched}
    found: dict[tuple[int, str], Incomplete] = {}
    for version in releases:
        counterparts = by_name_counterparts(catalog, version)
        for index, site in enumerate(patched):
            for missing, why in counterparts.get(site.target, ()):
                if (index, missing) in found or missing in done or not is_read(catalog, missing, version):
                    continue
                message = STALE_BY_NAME_IMPORT.message(target=site.target, missing=missing, why=why, version=version)
                found[(index, missing)] = Incomplete(site, missing, message)
    return [item for _, item in sorted(found.items(), key=lambda pair: pair[0][0])]  # in the order of the sites


def redundant_class_patches(patched: Iterable[Patched], classes: dict[str, str]) -> list[tuple[Patched, Patched]]:
    """FSU402: (earlier, later) where both patch the same class attribute through different modules."""
    first: dict[str, Patched] = {}
    pairs = []
    for site in patched:
        parts = site.target.split(".")
        if len(parts) < 3 or parts[1] not in classes:
            continue
        earlier = first.setdefault(site.target, site)
        if earlier is not site and _module_of(earlier.qualified, parts[1]) != _module_of(site.qualified, parts[1]):
            pairs.append((earlier, site))
    return pairs


def _module_of(qualified: str, cls: str) -> str:
    return qualified.split(f".{cls}.")[0]


def op_default_problems(patched: Iterable[Patched]) -> list[tuple[str, Patched, str]]:
    """(code, site, message) for FSU403 / FSU404, from install sites in source order."""
    packets: dict[str, Patched] = {}
    defaults: dict[str, Patched] = {}
    problems = []
    for site in patched:
        parts = site.target.split(".")
        if parts[0] != "ops":
            continue
        if len(parts) == 3:
            packets.setdefault(site.target, site)
        elif len(parts) == 4 and parts[3] == "default":
            packet = ".".join(parts[:3])
            defaults.setdefault(packet, site)
            if packet in packets:
                problems.append((OP_DEFAULT_AFTER_PACKET.code, site, OP_DEFAULT_AFTER_PACKET.message(packet=packet)))
    for packet, site in packets.items():
        if packet not in defaults:
            problems.append((OP_DEFAULT_NOT_REPLACED.code, site, OP_DEFAULT_NOT_REPLACED.message(packet=packet)))
    return problems
