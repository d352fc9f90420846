"""What a migration removes that other code may still name: patch functions and installers.

Two sources, one shape:
- the run itself: a replacement function the analysis deletes (FSU002) or an installer it deletes (FSU003);
- the catalog's `[patch_modules]`: a known patch module that is not among the scanned files (a
  downstream project importing from torch-npu) loses the replacements whose targets native FSDP2 serves
  in the target torch release, and its installer once it has nothing left to install.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional

from fsdp_unpatch.analysis.excerpt import statements
from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.analysis.plan import FileAnalysis, Options, Planned
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.project.bindings import bindings


@dataclass(frozen=True)
class RemovedSymbol:
    """A patch function that goes away, and what native FSDP2 offers in its place."""

    qualified: str  # `pkg.patch_module._patched_all_gather_copy_in`
    target: str  # catalog target id: `ops.fsdp.all_gather_copy_in`
    native: str  # the native counterpart's qualified name: `torch.ops.fsdp.all_gather_copy_in`
    origin: Optional[Planned] = field(default=None, compare=False)  # the FSU002 deletion in this run

    @property
    def module(self) -> str:
        return self.qualified.rsplit(".", 1)[0]

    @property
    def name(self) -> str:
        return self.qualified.rsplit(".", 1)[1]


@dataclass
class Removals:
    symbols: dict[str, RemovedSymbol] = field(default_factory=dict)  # qualified name -> symbol
    # Installers whose calls go (qualified name -> their FSU003 deletion, None when known from the catalog).
    installers: dict[str, Optional[Planned]] = field(default_factory=dict)

    def names(self) -> frozenset[str]:
        """The short names, for text searches (prefilter, strings)."""
        return frozenset(q.rsplit(".", 1)[1] for q in (*self.symbols, *self.installers))

    def __bool__(self) -> bool:
        return bool(self.symbols or self.installers)


def _native_ready(catalog: Catalog, target: str, version: Version) -> bool:
    entry = catalog.targets.get(target)
    if entry is None or entry.category != "remove":
        return False
    return entry.native_since is None or Version.parse(entry.native_since) <= version


def _bound(data: bytes) -> Optional[frozenset[str]]:
    """The names the module binds at top level (`project/bindings.py`); None when that cannot be known (it
    does not parse, or it star-imports). Read a statement at a time (`excerpt.statements`): a module of
    megabytes never has its whole tree in memory."""
    try:
        with no_cyclic_gc():
            found = bindings(statement for _, statement in statements(data))
    except (SyntaxError, ValueError):
        return None
    return None if found.star else found.names


def from_catalog(catalog: Catalog, options: Options, present: Mapping[str, Optional[bytes]]) -> Removals:
    """What the known patch modules lose in the target torch release.

    A module that is not in the run loses everything native FSDP2 serves. A module that is in the run
    (`present`: its name -> its bytes) decides for what it still binds (by `def`, assignment or import); what
    it no longer binds was removed (by an earlier fix, or by hand) and stays known as removed, so that the
    strings, references and tests that still name it are reported on every later run (README, "What fix
    remembers").
    """
    removals = Removals()
    for module in catalog.patch_modules.values():
        known, data = module.name in present, present.get(module.name)
        # an unreadable or unparsable module (None) may still bind everything
        bound = _bound(data) if data is not None else None

        def gone(name: str, known: bool = known, bound: Optional[frozenset[str]] = bound) -> bool:
            return not known or (bound is not None and name not in bound)

        ready = True
        for name, target in module.replacements.items():
            if not _native_ready(catalog, target, options.target_torch):
                ready = False
                continue
            qualified = f"{module.name}.{name}"
            if gone(name):
                removals.symbols[qualified] = RemovedSymbol(qualified, target, catalog.targets[target].native)
        if ready:
            for name in module.installers:
                if gone(name):
                    removals.installers[f"{module.name}.{name}"] = None
    return removals


def called_target(catalog: Catalog, target: str) -> str:
    """The target a reference to the replacement should call: an op's packet rather than its overload
    (a replacement installed over both is called as the packet)."""
    packet = target[: -len(".default")] if target.startswith("ops.") and target.endswith(".default") else None
    return packet if packet is not None and packet in catalog.targets else target


def from_run(catalog: Catalog, analyses: Iterable[FileAnalysis]) -> Removals:
    """Replacement functions and installers that this run deletes."""
    removals = Removals()
    for analysis in analyses:
        for name, planned in analysis.replacements.items():
            if planned.target is None or planned.target not in catalog.targets:
                continue
            qualified = f"{analysis.module_name}.{name}"
            target = called_target(catalog, planned.target)
            native = catalog.targets[target].native
            removals.symbols[qualified] = RemovedSymbol(qualified, target, native, planned)
        for installer in analysis.installers:
            if installer.removable:
                removals.installers[installer.qualified] = installer.finding
    return removals
