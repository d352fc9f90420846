"""The cross-file step for the rest of a codebase: what still names a removed patch function or installer.

Each step yields decisions (`analysis/decisions.py`: add a finding, drop one, require a fix, keep an
installer) instead of editing the files' plans; the runner's `link()` applies them as they come, in one
place (`Run.decide`). Called once by the runner, after each file was analysed on its own:
1. collect what the migration removes: the run's own deletions (FSU002, FSU003, with what an earlier
   safe-only fix left behind: `run/orphans.py`) and, for known patch modules that are not among the scanned
   files, what the catalog says they lose (`removals.py`);
2. parse the files that name one of those but had no FSDP token for the prefilter;
3. per file: calls of a known installer (FSU004), tests of removed functions (FSU302/303/305), other
   references rewritten to native (FSU301), each handed to the dispatcher (`installer-calls`, `tests`,
   `reference`);
4. a replacement function of the run goes only when every reference elsewhere is rewritten or deleted by
   a fix: its deletion then requires those fixes (so it is unsafe when one of them is); otherwise it stays,
   as it did when another file named it;
5. removed names left inside string literals (FSU304, `strings`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Protocol, Sequence, TypeVar

import libcst as cst

from fsdp_unpatch.analysis.byte_search import mentions
from fsdp_unpatch.analysis.decisions import Add, Decision, Drop, KeepInstaller, Require
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.patterns import child_nodes, nodes_in, qualify
from fsdp_unpatch.analysis.plan import FileAnalysis, Options, Planned
from fsdp_unpatch.analysis.references import FileReferences, find_references
from fsdp_unpatch.analysis.subjects import RemovedReference, Strings
from fsdp_unpatch.analysis.test_modules import inside
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.project.identity import is_test_module
from fsdp_unpatch.project.identity import module_name as module_name_of
from fsdp_unpatch.rules.registry import role_of
from fsdp_unpatch.run.orphans import plan_orphans
from fsdp_unpatch.run.removals import Removals, RemovedSymbol, from_catalog, from_run
from fsdp_unpatch.run.test_plans import TestPlan, plan_tests


class Unit(Protocol):  # the runner's per-file record
    analysis: Optional[FileAnalysis]
    source: Any  # SourceFile (`.data`: bytes) or None
    error: Any
    candidate: Any  # `.path`: Path
    excerpt: Any  # the `Excerpt` it is analysed through, or None


U = TypeVar("U", bound=Unit)


def widen(units: Sequence[Unit], seeds: set[str], analyze: Callable[[Any], None]) -> None:
    """Excerpts of files that spell a name the run removes are built again with it, through `analyze`, the
    runner's (the cross-file steps read every use of those names, also under another name it is imported as),
    until nothing changes; `seeds`, the names excerpts keep, grows with them."""
    while True:
        names: set[str] = set()
        for unit in units:
            if unit.analysis is not None:
                names.update(i.qualified.rsplit(".", 1)[-1] for i in unit.analysis.installers)
                names.update(unit.analysis.replacements)
                names.update(  # functions and classes a planned fix deletes
                    e.node.name.value
                    for p in unit.analysis.planned
                    for e in p.edits
                    if isinstance(e.node, (cst.FunctionDef, cst.ClassDef))
                )
        names -= seeds
        if not names:
            return
        seeds |= names
        for unit in units:
            if unit.excerpt is not None and unit.excerpt.may_hide(names):
                analyze(unit)


def present_patch_modules(units: Sequence[Unit], catalog: Catalog) -> dict[str, Unit]:
    """Known patch modules that are among the scanned files: catalog module -> the file that is it.

    A file is the known module when it has the module's file name and either its path names the module or
    it defines one of the module's installers at top level, whatever its folders are called (a copy of
    torch-npu in a folder of another name, a release whose `fsdp/` folder has no `__init__.py`). For such a
    module the run decides, not the catalog.
    """
    present: dict[str, Unit] = {}
    for name, module in catalog.patch_modules.items():
        stem = name.rsplit(".", 1)[-1]
        for unit in units:
            path: Path = unit.candidate.path
            if path.stem != stem:
                continue
            if module.path is not None:  # a module this project's earlier fix changed: that file, no other
                if os.path.realpath(path) == module.path:
                    present[name] = unit
                continue
            analysis = unit.analysis
            functions = analysis.facts.functions if analysis is not None else {}
            if module_name_of(path, real=True)[0] == name or any(
                parent is None for installer in module.installers for _, parent in functions.get(installer, [])
            ):
                present[name] = unit
    return present


def _remembered_outside_the_run(catalog: Catalog, present: Mapping[str, Unit]) -> dict[str, Optional[bytes]]:
    """A remembered module outside this run (a partial run, pre-commit) is read where it lies: what it binds
    again is not removed. One that is gone from disk has lost everything."""
    contents: dict[str, Optional[bytes]] = {}
    for name, module in catalog.patch_modules.items():
        if module.path is None or name in present or not os.path.lexists(module.path):
            continue
        try:
            with open(module.path, "rb") as handle:
                contents[name] = handle.read()
        except OSError:
            contents[name] = None  # unreadable: it may still bind everything
    return contents


def installer_aliases(
    units: Sequence[Unit], catalog: Catalog, installers: dict[str, Optional[Planned]]
) -> dict[str, Optional[Planned]]:
    """Calls that name a known patch module's installer by the catalog's path go with the run's copy of it:
    removed when (and only when) the run removes that installer."""
    out: dict[str, Optional[Planned]] = {}
    for name, unit in present_patch_modules(units, catalog).items():
        run_name = unit.analysis.module_name if unit.analysis is not None else name
        for installer in catalog.patch_modules[name].installers:
            if f"{run_name}.{installer}" in installers:
                out[f"{name}.{installer}"] = installers[f"{run_name}.{installer}"]
    return out


def _mentions(unit: Unit, names: Sequence[bytes]) -> bool:
    return unit.source is not None and mentions(unit.source.data, names)


def calls_of_installers(
    units: Sequence[Unit], installers: Mapping[str, Optional[Planned]], catalog: Catalog, options: Options
) -> Iterator[Decision]:
    """Calls of the installers the run removes, in the files other than the installer's own module (which
    planned its calls itself; a package's `__init__` is not its own): the `installer-calls` checks."""
    for unit in units:
        analysis = unit.analysis
        if analysis is None:
            continue
        own = analysis.module_name
        foreign = {q: f for q, f in installers.items() if q.rsplit(".", 1)[0] != own}
        for planned in dispatch("installer-calls", analysis, foreign, catalog, options=options):
            yield Add(analysis, planned)


class _Linker:
    def __init__(self, units: Sequence[Unit], catalog: Catalog, options: Options, planned_installers: set[str]):
        self.units = units
        self.catalog = catalog
        self.options = options
        analyses = [u.analysis for u in units if u.analysis is not None]
        self.run_removals = from_run(catalog, analyses)
        # Installers found only now (left empty by an earlier fix): their calls are planned here.
        self.orphan_installers = {q: f for q, f in self.run_removals.installers.items() if q not in planned_installers}
        present = present_patch_modules(units, catalog)
        contents = {n: (u.source.data if u.source is not None else None) for n, u in present.items()}
        contents.update(_remembered_outside_the_run(catalog, present))
        self.known = from_catalog(catalog, options, contents)
        self.symbols: dict[str, RemovedSymbol] = {**self.known.symbols, **self.run_removals.symbols}
        self.installers: dict[str, Optional[Planned]] = {**self.known.installers, **self.run_removals.installers}
        # per symbol: the fixes that rewrite or delete its references elsewhere, and whether one stays
        self.covering: dict[str, list[Planned]] = defaultdict(list)
        self.blocked: set[str] = set()
        self.deleted_code: dict[int, list] = {}

    def removals(self) -> Removals:
        return Removals(self.symbols, self.installers)

    def parse_mentioning(self, analyze: Callable[[Any], None]) -> None:  # takes the runner's own units
        names = sorted(n.encode() for n in self.removals().names())
        for unit in self.units:
            if unit.analysis is None and unit.error is None and _mentions(unit, names):
                analyze(unit)

    def installer_calls(self, analysis: FileAnalysis) -> set[int]:
        return {
            id(call.statement)
            for call in analysis.facts.calls
            if qualify(analysis.table, call.call.func) in self.installers
        }

    def used_elsewhere(self, unit: Unit) -> Callable[[], bool]:
        def check() -> bool:
            assert unit.analysis is not None
            stem = unit.analysis.module_name.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape")
            return any(other is not unit and _mentions(other, [stem]) for other in self.units)

        return check

    def plan_file(self, unit: Unit) -> Iterator[Decision]:
        analysis = unit.analysis
        assert analysis is not None
        installers = {**self.known.installers, **self.orphan_installers}
        for call in dispatch("installer-calls", analysis, installers, self.catalog, options=self.options):
            yield Add(analysis, call)
        references = find_references(analysis, self.symbols)
        tests = plan_tests(
            analysis,
            references,
            self.catalog,
            self.options,
            test_module=is_test_module(unit.candidate.path),
            installer_calls=self.installer_calls(analysis),
            used_elsewhere=self.used_elsewhere(unit),
        )
        for test_finding in tests.planned:
            yield Add(analysis, test_finding)
        yield from self.absorb_installer_calls(analysis, tests)
        installed = {id(install.value) for install in analysis.facts.installs}
        for reference in references.references:
            if id(reference.node) in installed:
                # Installed over an FSDP2 symbol here: the install-site analysis reports it (FSU101);
                # rewriting the value would only assign the native function to itself.
                self.blocked.add(reference.symbol.qualified)
                continue
            covered = tests.covered.get(id(reference.node))
            if covered is not None:
                found = [covered]
            else:
                subject = RemovedReference(reference, references.names)
                found = list(dispatch("reference", subject, analysis, self.catalog, options=self.options))
                for planned in found:
                    yield Add(analysis, planned)
            fixed = [planned for planned in found if planned.edits]
            if fixed:  # the symbol may go with these fixes
                self.covering[reference.symbol.qualified] += fixed
            else:  # no fix rewrites this reference: the symbol stays
                self.blocked.add(reference.symbol.qualified)
        self.block_unresolved(analysis, references)
        self.deleted_code[id(analysis)] = [node for node, _ in tests.deleted]

    def absorb_installer_calls(self, analysis: FileAnalysis, tests: TestPlan) -> Iterator[Decision]:
        """An installer call inside a test the fix deletes goes with the test, not on its own."""
        if not tests.deleted:
            return
        for planned in list(analysis.planned):
            if role_of(planned.code) != "installer-call":
                continue
            deletion = inside(planned.node, tests.deleted)
            if deletion is None:
                continue
            yield Drop(analysis, planned)
            for installer in planned.requires:  # the installer may go only with the test
                yield Require(installer, (deletion,))

    def block_unresolved(self, analysis: FileAnalysis, references: FileReferences) -> None:
        for _, name in references.unresolved:
            for qualified, symbol in self.symbols.items():
                if symbol.name == name and symbol.module != analysis.module_name:
                    self.blocked.add(qualified)

    def decide_replacements(self) -> Iterator[Decision]:
        """Keep a replacement of the run that something elsewhere still needs; else tie it to the fixes."""
        by_module = {u.analysis.module_name: u.analysis for u in self.units if u.analysis is not None}
        for qualified, symbol in self.run_removals.symbols.items():
            origin = symbol.origin
            assert origin is not None
            name = symbol.name.encode()
            unreadable = any(u.analysis is None and _mentions(u, [name]) for u in self.units)
            if qualified in self.blocked or unreadable:
                yield Drop(by_module[symbol.module], origin, replacement=symbol.name)
                del self.symbols[qualified]
            else:
                yield Require(origin, tuple(self.covering[qualified]))

    def plan_strings(self, units: Sequence[Unit]) -> Iterator[Decision]:
        removed = {s.name: f"native: `{s.native}`" for s in self.symbols.values()}
        removed.update({q.rsplit(".", 1)[1]: "nothing replaces it" for q in self.installers})
        for unit in units:
            analysis = unit.analysis
            if analysis is not None:
                # and the `__all__` entries an installer's fix deletes with it
                entries = {id(n) for names in analysis.dunder_all_entries.values() for n in names}
                skipped = [
                    *self.deleted_code.get(id(analysis), []),
                    *(e.node for p in analysis.planned for e in p.edits if id(e.node) in entries),
                ]
                # A name this module defines and keeps (`__all__ = ["_patched_x"]` beside its `def`) is its own.
                deleted = {p.deletes for p in analysis.planned if p.deletes is not None}
                kept = set(analysis.facts.functions) - deleted
                here = {name: why for name, why in removed.items() if name not in kept}
                strings = Strings(here, skipped)
                for planned in dispatch("strings", strings, analysis, self.catalog, options=self.options):
                    yield Add(analysis, planned)


def link_references(
    units: Sequence[U], analyze: Callable[[U], None], catalog: Catalog, options: Options
) -> Iterator[Decision]:
    """The findings about removed patch symbols named across the files of a run (see module doc)."""
    analyses = [u.analysis for u in units if u.analysis is not None]
    planned_installers = set(from_run(catalog, analyses).installers)
    for analysis in analyses:
        yield from plan_orphans(analysis, catalog, options)
    linker = _Linker(units, catalog, options, planned_installers)
    if not linker.symbols and not linker.installers:
        return
    linker.parse_mentioning(analyze)
    # A file that names none of the removed symbols or installers has nothing to plan: no tree walk.
    names = sorted(n.encode() for n in linker.removals().names())
    mentioning = [u for u in units if u.analysis is not None and _mentions(u, names)]
    for unit in mentioning:
        yield from linker.plan_file(unit)
    yield from linker.decide_replacements()
    yield from linker.plan_strings(mentioning)


def keep_installers_still_used(units: Sequence[Unit]) -> Iterator[Decision]:
    """An installer the run would delete stays when code the fix leaves still names it.

    Its calls that are whole statements go with it (FSU004), its imports with them; any other use (a call
    whose result is kept, a reference in a list or dict, a module path the run cannot name, a file the run
    could not read) would break at import time, so the installer and its calls stay.
    """
    analyses = [u.analysis for u in units if u.analysis is not None]
    for analysis in analyses:
        for installer in analysis.installers:
            if not installer.removable or installer.finding is None:
                continue
            user = _named_outside_fixes(units, installer.qualified, skipped=installer.node)
            if user is not None:
                why = f"; kept: {user.name} still names it outside what the fix changes"
                yield KeepInstaller(installer, why, analyses)


def keep_replacements_still_used(units: Sequence[Unit]) -> Iterator[Decision]:
    """A replacement the run would delete stays when another file still names it outside what the fix
    rewrites or deletes there (e.g. through a module path the run cannot name, a folder without
    `__init__.py`)."""
    for unit in units:
        analysis = unit.analysis
        if analysis is None:
            continue
        others = [u for u in units if u is not unit]
        for name, planned in list(analysis.replacements.items()):
            if (
                planned in analysis.planned
                and _named_outside_fixes(others, f"{analysis.module_name}.{name}") is not None
            ):
                yield Drop(analysis, planned, replacement=name)


def _same_object(spelled: Optional[str], qualified: str) -> bool:
    """Whether a qualified name a file uses may be `qualified`: the same, one a dotted suffix of the other
    (a package the run names shorter or longer), or not resolvable at all."""
    if spelled is None or "." not in spelled:
        return True
    return spelled == qualified or spelled.endswith("." + qualified) or qualified.endswith("." + spelled)


def _named_outside_fixes(
    units: Sequence[Unit], qualified: str, skipped: Optional[cst.CSTNode] = None
) -> Optional[Path]:
    """The first file that uses `qualified` outside the nodes its planned fixes edit (and outside `skipped`).
    Imports do not count: the fixes remove the imports they leave unused."""
    name = qualified.rsplit(".", 1)[-1]
    skipped_ids = {id(node) for node in nodes_in(skipped)} if skipped is not None else set()
    for unit in units:
        if unit.source is None or not mentions(unit.source.data, [name.encode()]):
            continue
        analysis = unit.analysis
        if analysis is None:
            if unit.error is not None:
                continue  # unread or unparsable: the fix's transaction holds back what it may break
            return unit.candidate.path  # skipped (`# fsdp-unpatch: skip-file`): it may use it in any way
        if _uses(analysis, qualified, name, _covered(analysis), skipped_ids):
            return unit.candidate.path
    return None


def _covered(analysis: FileAnalysis) -> set[int]:
    """ids of every node inside what the file's planned fixes edit; kept until the planned edits change (a
    group of linked files asks this for every name any of them deletes: once per file, not once per name)."""
    edits = tuple(id(edit.node) for p in analysis.planned for edit in p.edits)
    cached = getattr(analysis, "_covered_by_edits", None)
    if cached is None or cached[0] != edits:
        nodes = {id(node) for p in analysis.planned for edit in p.edits for node in nodes_in(edit.node)}
        cached = (edits, nodes)
        analysis._covered_by_edits = cached  # type: ignore[attr-defined]
    return cached[1]


def _name_index(analysis: FileAnalysis) -> dict[str, list[cst.BaseExpression]]:
    """Every use of a name in the module outside imports, by the name: `x` for a Name, the Attribute
    itself for `a.b.x` (its `.x` is no use of its own). Built once per module, in one walk."""
    index: Optional[dict[str, list[cst.BaseExpression]]] = getattr(analysis, "_uses_by_name", None)
    if index is None:
        index = {}
        attributes: set[int] = set()
        stack: list[cst.CSTNode] = [analysis.module]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.Import, cst.ImportFrom)):
                continue
            if isinstance(node, cst.Attribute):
                attributes.add(id(node.attr))
                index.setdefault(node.attr.value, []).append(node)
            elif isinstance(node, cst.Name) and id(node) not in attributes:
                index.setdefault(node.value, []).append(node)
            stack.extend(child_nodes(node))
        analysis._uses_by_name = index  # type: ignore[attr-defined]
    return index


def _uses(analysis: FileAnalysis, qualified: str, name: str, covered: set[int], skipped: set[int]) -> bool:
    """Whether the module uses `name` as (possibly) `qualified` outside `covered` and `skipped` nodes."""
    table = analysis.table
    return any(
        id(node) not in covered and id(node) not in skipped and _same_object(qualify(table, node), qualified)
        for node in _name_index(analysis).get(name, ())
    )
