"""The cross-file step for the rest of a codebase: what still names a removed patch function or installer.

Called once by the runner's `link()`, after each file was analysed on its own:
1. collect what the migration removes: the run's own deletions (FSU002, FSU003, with what an earlier
   safe-only fix left behind: `orphans.py`) and, for known patch modules that are not among the scanned
   files, what the catalog says they lose (`removals.py`);
2. parse the files that name one of those but had no FSDP token for the prefilter;
3. per file: calls of a known installer (FSU004), tests of removed functions (FSU302/303/305), other
   references rewritten to native (FSU301);
4. a replacement function of the run goes only when every reference elsewhere is rewritten or deleted by
   a fix: its deletion then requires those fixes (so it is unsafe when one of them is); otherwise it stays,
   as it did when another file named it;
5. removed names left inside string literals (FSU304).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, Sequence

import libcst as cst

from fsdp_unpatch.analysis import FileAnalysis, Options, Planned, plan_installer_calls
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.orphans import plan_orphans
from fsdp_unpatch.prefilter import mentions
from fsdp_unpatch.references import FileReferences, find_references, plan_rewrite
from fsdp_unpatch.removals import Removals, RemovedSymbol, from_catalog, from_run
from fsdp_unpatch.sourcefile import module_name_for
from fsdp_unpatch.strings import plan_strings
from fsdp_unpatch.test_cleanup import TestPlan, is_test_module, plan_tests


class Unit(Protocol):  # the runner's per-file record
    analysis: Optional[FileAnalysis]
    source: Any  # SourceFile (`.data`: bytes) or None
    error: Any
    candidate: Any  # `.path`: Path


def _present_patch_modules(units: Sequence[Unit], catalog: Catalog) -> dict[str, Optional[bytes]]:
    """Known patch modules that are among the scanned files, with their bytes (the run decides for what
    they still define)."""
    present: dict[str, bytes] = {}
    for module in catalog.patch_modules:
        stem = module.rsplit(".", 1)[-1]
        for unit in units:
            path: Path = unit.candidate.path
            if path.stem == stem and module_name_for(path)[0] == module:
                present[module] = unit.source.data if unit.source is not None else None
    return present


def _mentions(unit: Unit, names: Sequence[bytes]) -> bool:
    return unit.source is not None and mentions(unit.source.data, names)


class _Linker:
    def __init__(self, units: Sequence[Unit], catalog: Catalog, options: Options) -> None:
        self.units = units
        self.catalog = catalog
        self.options = options
        analyses = [u.analysis for u in units if u.analysis is not None]
        planned_installers = set(from_run(catalog, analyses).installers)
        for analysis in analyses:
            plan_orphans(analysis, catalog, options)
        self.run_removals = from_run(catalog, analyses)
        # Installers found only now (left empty by an earlier fix): their calls are planned here.
        self.orphan_installers = {
            q: f for q, f in self.run_removals.installers.items() if q not in planned_installers
        }
        self.known = from_catalog(catalog, options, _present_patch_modules(units, catalog))
        self.symbols: dict[str, RemovedSymbol] = {**self.known.symbols, **self.run_removals.symbols}
        self.installers: dict[str, Optional[Planned]] = {**self.known.installers, **self.run_removals.installers}
        # per symbol: the fixes that rewrite or delete its references elsewhere, and whether one stays
        self.covering: dict[str, list[Planned]] = defaultdict(list)
        self.blocked: set[str] = set()
        self.deleted_code: dict[int, list] = {}

    def removals(self) -> Removals:
        return Removals(self.symbols, self.installers)

    def parse_mentioning(self, analyze: Callable[[Unit], None]) -> None:
        names = sorted(n.encode() for n in self.removals().names())
        for unit in self.units:
            if unit.analysis is None and unit.error is None and _mentions(unit, names):
                analyze(unit)

    def installer_calls(self, analysis: FileAnalysis) -> set[int]:
        return {
            id(call.statement) for call in analysis.facts.calls
            if analysis.table.qualify(call.call.func) in self.installers
        }

    def used_elsewhere(self, unit: Unit) -> Callable[[], bool]:
        def check() -> bool:
            assert unit.analysis is not None
            stem = unit.analysis.module_name.rsplit(".", 1)[-1].encode()
            return any(other is not unit and _mentions(other, [stem]) for other in self.units)

        return check

    def plan_file(self, unit: Unit) -> None:
        analysis = unit.analysis
        assert analysis is not None
        plan_installer_calls(analysis, {**self.known.installers, **self.orphan_installers})
        references = find_references(analysis, self.symbols)
        tests = plan_tests(
            analysis,
            references,
            test_module=is_test_module(unit.candidate.path),
            installer_calls=self.installer_calls(analysis),
            used_elsewhere=self.used_elsewhere(unit),
        )
        analysis.planned.extend(tests.planned)
        self.absorb_installer_calls(analysis, tests)
        installed = {id(install.value) for install in analysis.facts.installs}
        for reference in references.references:
            if id(reference.node) in installed:
                # Installed over an FSDP2 symbol here: the install-site analysis reports it (FSU101);
                # rewriting the value would only assign the native function to itself.
                self.blocked.add(reference.symbol.qualified)
                continue
            planned = tests.covered.get(id(reference.node))
            if planned is None:
                planned = plan_rewrite(analysis, reference, self.catalog, references.names)
                analysis.planned.append(planned)
            if planned.edits:
                self.covering[reference.symbol.qualified].append(planned)
            else:
                self.blocked.add(reference.symbol.qualified)
        self.block_unresolved(analysis, references)
        self.deleted_code[id(analysis)] = [node for node, _ in tests.deleted]

    def absorb_installer_calls(self, analysis: FileAnalysis, tests: TestPlan) -> None:
        """An installer call inside a test the fix deletes goes with the test, not on its own."""
        if not tests.deleted:
            return
        from fsdp_unpatch.test_cleanup import inside

        for planned in list(analysis.planned):
            if planned.code != "FSU004":
                continue
            deletion = inside(planned.node, tests.deleted)
            if deletion is None:
                continue
            analysis.planned.remove(planned)
            for installer in planned.requires:  # the installer may go only with the test
                installer.requires.append(deletion)

    def block_unresolved(self, analysis: FileAnalysis, references: FileReferences) -> None:
        for _, name in references.unresolved:
            for qualified, symbol in self.symbols.items():
                if symbol.name == name and symbol.module != analysis.module_name:
                    self.blocked.add(qualified)

    def decide_replacements(self) -> None:
        """Keep a replacement of the run that something elsewhere still needs; else tie it to the fixes."""
        by_module = {u.analysis.module_name: u.analysis for u in self.units if u.analysis is not None}
        for qualified, symbol in self.run_removals.symbols.items():
            origin = symbol.origin
            assert origin is not None
            name = symbol.name.encode()
            unreadable = any(u.analysis is None and _mentions(u, [name]) for u in self.units)
            if qualified in self.blocked or unreadable:
                analysis = by_module[symbol.module]
                if origin in analysis.planned:
                    analysis.planned.remove(origin)
                analysis.replacements.pop(symbol.name, None)
                del self.symbols[qualified]
            else:
                origin.requires.extend(self.covering[qualified])

    def plan_strings(self, units: Sequence[Unit]) -> None:
        removed = {s.name: f"native: `{s.native}`" for s in self.symbols.values()}
        removed.update({q.rsplit(".", 1)[1]: "nothing replaces it" for q in self.installers})
        for unit in units:
            analysis = unit.analysis
            if analysis is not None:
                skipped = self.deleted_code.get(id(analysis), [])
                # A name this module defines and keeps (`__all__ = ["_patched_x"]` beside its `def`) is its own.
                deleted = {p.node.value for p in analysis.planned  # type: ignore[attr-defined]
                           if p.code in ("FSU002", "FSU003") and isinstance(p.node, cst.Name)}
                kept = set(analysis.facts.functions) - deleted
                here = {name: why for name, why in removed.items() if name not in kept}
                analysis.planned.extend(plan_strings(analysis, here, skipped))


def link_references(
    units: Sequence[Unit], analyze: Callable[[Unit], None], catalog: Catalog, options: Options
) -> None:
    """Plan the findings about removed patch symbols named across the files of a run (see module doc)."""
    linker = _Linker(units, catalog, options)
    if not linker.symbols and not linker.installers:
        return
    linker.parse_mentioning(analyze)
    # A file that names none of the removed symbols or installers has nothing to plan: no tree walk.
    names = sorted(n.encode() for n in linker.removals().names())
    mentioning = [u for u in units if u.analysis is not None and _mentions(u, names)]
    for unit in mentioning:
        linker.plan_file(unit)
    linker.decide_replacements()
    linker.plan_strings(mentioning)
