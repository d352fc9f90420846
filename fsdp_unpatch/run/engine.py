"""One run over a set of paths: discover, analyse, link across files, fix, and collect findings.

Data flows one way: paths -> files -> (prefilter) -> parsed analyses -> cross-file linking ->
findings with positions -> selected fixes -> re-parsed, atomically written results.

libcst and the modules built on it (the analysis, the cross-file steps, the fixes) are imported where a file
reaches them (`Run.analyze`, the steps after it), not here: a run whose files the `ast` model decides
(`on_ast.py`) loads none of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Optional

from fsdp_unpatch.analysis import numbers
from fsdp_unpatch.analysis.byte_search import mentions
from fsdp_unpatch.analysis.decisions import Decision, apply_all
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.excerpt import Excerpt
from fsdp_unpatch.analysis.excerpt import build as build_excerpt
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.analysis.screen import screen_for
from fsdp_unpatch.analysis.source import (
    MAX_PARSE_BYTES,
    keep_line_endings,
    on_big_stack,
    parse_source,
)
from fsdp_unpatch.analysis.suppression import reported, skips_file
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.discovery import Candidate
from fsdp_unpatch.files.reading import SourceError, SourceFile, declared_encoding, read_candidate
from fsdp_unpatch.files.signals import checkpoint
from fsdp_unpatch.fixes.transaction import Change, commit_groups, hold_back

# Defined apart from the engine so that reports and the command line load without libcst.
from fsdp_unpatch.model import FileResult, Finding, Fix, FixApplicability, RunOptions, RunResult, Span  # noqa: F401
from fsdp_unpatch.project.identity import module_name as module_name_of
from fsdp_unpatch.project.identity import roots_of
from fsdp_unpatch.rules.registry import error_finding
from fsdp_unpatch.run import on_ast
from fsdp_unpatch.run.holds import keep_called_installers, keep_named_outside
from fsdp_unpatch.run.import_findings import report_imports
from fsdp_unpatch.run.import_net import guard
from fsdp_unpatch.run.learned import Learned
from fsdp_unpatch.run.module_aliases import exported_aliases, exporters_imported_elsewhere, importers_of
from fsdp_unpatch.run.noqa_findings import unused_noqa_findings
from fsdp_unpatch.run.unit import Unit

if TYPE_CHECKING:
    from fsdp_unpatch.fixes.node_facts import NodeFacts


class Run:
    def __init__(self, catalog: Catalog, options: RunOptions, learned: Optional[Learned] = None) -> None:
        self.catalog = catalog
        self.options = options
        # what is known of each file (bytes, verdict, excerpts, trees), shared with the other phases of a run
        self.learned = learned if learned is not None else Learned()
        self.node_facts: Optional[NodeFacts] = None  # made with the first fix's regions (`facts`)
        self.units: list[Unit] = []
        self.applied: dict[int, list[Planned]] = {}  # id(unit) -> the fixes applied to it
        self.blockers: dict[int, str] = {}  # id(unit) -> why its planned fix cannot be made
        self.seeds: set[str] = set()  # names the run removes: an excerpt keeps the statements spelling them
        self.owners: dict[int, Unit] = {}  # id(planned) -> the unit whose file it edits
        self.dependents: dict[int, list[Planned]] = {}  # id(planned) -> the fixes that require it
        self.regions: dict[tuple, tuple] = {}  # (id(unit), ids of edits) -> the regions they rewrite
        self.guards_imports = True  # the import net over the project (`import_net.py`); off for a part of a run
        self.selected: Optional[set[int]] = None  # ids of the planned findings reported, once settled

    @property
    def facts(self) -> NodeFacts:
        """Names used and nodes below, per node: asked for again by every fix's regions."""
        if self.node_facts is None:
            from fsdp_unpatch.fixes.node_facts import NodeFacts

            self.node_facts = NodeFacts()
        return self.node_facts

    def analyze(self, unit: Unit) -> None:
        """The file through libcst: the one step that parses with it, and so where it is first imported."""
        from fsdp_unpatch.analysis.plan import analyze_module

        assert unit.source is not None
        if unit.skipped:
            return
        unit.on_ast = None  # analysed with libcst: what the model built is superseded
        name, is_package = module_name_of(unit.candidate.path, real=True)
        unit.excerpt = self.excerpt(unit.source, name, is_package)
        file = (unit.candidate.display, unit.source.data)
        try:
            try:
                source = unit.source if unit.excerpt is None else replace(unit.source, data=unit.excerpt.text)
                module = self.learned.parse(file, source, parse_source)
            except SourceError:
                if unit.excerpt is None:
                    raise
                unit.excerpt = None  # libcst refuses the excerpt: the whole file says why, at its own lines
                source = unit.source
                module = self.learned.parse(file, source, parse_source)
        except SourceError as error:
            unit.error = error_finding(unit.candidate.display, error)
            return
        try:
            unit.analysis = analyze_module(
                module,
                name,
                is_package,
                self.catalog,
                self.options.analysis,
                excerpt=unit.excerpt,
                linked=unit.linked,
                data=source.data,
            )
        except RecursionError:  # libcst's visitors recurse once per level of nesting
            unit.error = error_finding(
                unit.candidate.display,
                SourceError("parse", "too deeply nested to analyse (Python's recursion limit); the file is left alone"),
            )

    def excerpt(self, source: SourceFile, name: str, is_package: bool) -> Optional[Excerpt]:
        """The excerpt to analyse a large file through; None: the whole file (small, or no excerpt is safe)."""
        data = source.data
        # a smaller file too, for the large displays of numbers it holds (`analysis/numbers.py`)
        small = len(data) < self.options.excerpt_above
        if len(data) > MAX_PARSE_BYTES or (small and not numbers.may_hold(data)):
            return None
        try:
            encoding = declared_encoding(data)
        except SyntaxError:
            return None  # an unknown encoding: the whole file's parse says so
        seeds = frozenset(s for s in self.seeds if s.encode() in data)
        key = (source.display, data, name, is_package, seeds, self.options.excerpt_above)
        built = self.learned.excerpt(
            key, lambda: build_excerpt(data, encoding, name, is_package, screen_for(self.catalog), seeds)
        )
        return None if small and (built is None or not built.literals) else built

    def load(self, candidates: Iterable[Candidate]) -> None:
        for candidate in candidates:
            checkpoint()
            unit = Unit(candidate)
            self.units.append(unit)
            try:
                unit.source = self.learned.source(candidate.display) or read_candidate(candidate)
            except SourceError as error:
                unit.error = error_finding(candidate.display, error)
                continue
            if skips_file(unit.source.data):
                unit.skipped = True
            elif self.learned.worth_analysing(unit.source, self.catalog, self.options):
                if not on_ast.decide(unit, self.catalog, self.options):
                    self.analyze(unit)

    def link_module_aliases(self) -> None:
        """A file that imports a name another file binds to an FSDP2 module or class (`compat.py`:
        `fsm = torch...._fully_shard`; `from .compat import fsm; fsm.FSDPModule.x = f`) is analysed again as if
        it spelled the full path (`module_aliases.py`)."""
        for unit in exporters_imported_elsewhere(self.units, self.catalog):
            self.analyze(unit)  # the prefilter drops a file that only binds aliases: analysed now, to know them
        exported = exported_aliases(self.units)
        for unit in importers_of(exported, self.units, self.catalog):
            unit.linked = exported
            self.analyze(unit)

    def link(self) -> None:
        """Cross-file decisions: installer calls elsewhere, references to removed patch symbols."""
        for unit in on_ast.to_parse(self.units, self.catalog):
            self.analyze(unit)
        self.link_module_aliases()
        if on_ast.nothing_to_link(self.units):
            return  # the steps below read analyses, or parse files that name a patch: none here
        from fsdp_unpatch.run import linking  # libcst's, as the analyses it reads

        linking.widen(self.units, self.seeds, self.analyze)
        analyzed = [u for u in self.units if u.analysis is not None]
        installers = {
            i.qualified: i.finding
            for u in analyzed
            if u.analysis is not None
            for i in u.analysis.installers
            if i.removable
        }
        installers.update(linking.installer_aliases(self.units, self.catalog, installers))
        if installers:
            names = {q.rsplit(".", 1)[-1].encode() for q in installers}
            for unit in self.units:
                if unit.analysis is None and unit.error is None and mentions(unit.source.data, names):  # type: ignore[union-attr]
                    self.analyze(unit)
            self.decide(linking.calls_of_installers(self.units, installers, self.catalog, self.options.analysis))
        # An installer that code the fix leaves still names stays, with its calls.
        self.decide(linking.keep_installers_still_used(self.units))
        # References, tests and strings that name what the run removes; replacements still needed stay.
        self.decide(linking.link_references(self.units, self.analyze, self.catalog, self.options.analysis))
        # Again for the installers an earlier fix emptied (FSU003 orphans, planned while linking references):
        # one still named stays, as it did in the run that emptied it.
        self.decide(linking.keep_installers_still_used(self.units))
        self.decide(linking.keep_replacements_still_used(self.units))
        # The rules that check the run as a whole (a by-name twin patched in another file completes a patch).
        analyses = [u.analysis for u in self.units if u.analysis is not None]
        self.decide(dispatch("run", analyses, self.catalog, options=self.options.analysis))

    def decide(self, decisions: Iterable[Decision]) -> None:
        """The one place the cross-file decisions are applied, each as its step yields it: a step reads the
        files' plans as its own earlier decisions left them (`analysis/decisions.py`)."""
        apply_all(decisions)

    def fixable(self, planned: Planned, selected: set[int], memo: dict[int, bool]) -> bool:
        """Whether a finding's fix can be applied: it is selected, and so is everything it requires."""
        key = id(planned)
        if key not in memo:
            memo[key] = False  # a cycle of requirements is not fixable
            memo[key] = (
                key in selected
                and bool(planned.edits)
                and self.catalog.rule(planned.code).fix in ("safe", "unsafe")
                and self.options.fixable(planned.code)
                and all(self.fixable(r, selected, memo) for r in planned.requires)
            )
        return memo[key]

    def applicability(self, planned: Planned) -> FixApplicability:
        """A fix is unsafe when it, or a fix it requires (in any file), is unsafe."""
        seen, stack = set(), [planned]
        while stack:
            current = stack.pop()
            if id(current) not in seen:
                seen.add(id(current))
                if self.catalog.rule(current.code).fix == "unsafe":
                    return "unsafe"
                stack.extend(current.requires)
        return "safe"

    def carried(self, planned: Planned) -> list[Planned]:
        """The fixes whose edits this finding's fix carries, so that it leaves working code applied alone: the
        fixes it requires, and each fix that requires one of those and removes a use, left after them, of a
        function or class they delete (an installer's calls; the file deletion that takes a test's
        `__main__` call with it)."""
        import libcst as cst

        from fsdp_unpatch.fixes.edits import outermost, removed_uses

        carried: list[Planned] = []
        seen: set[int] = set()
        stack = [planned]
        while stack:
            while stack:
                current = stack.pop()
                if id(current) not in seen:
                    seen.add(id(current))
                    carried.append(current)
                    stack.extend(current.requires)
            deleted = {
                e.node.name.value
                for p in carried
                for e in p.edits
                if e.replacement is None and isinstance(e.node, (cst.FunctionDef, cst.ClassDef))
            }
            by_file: dict[int, list] = {}
            for p in carried:
                by_file.setdefault(id(self.owners.get(id(p))), []).extend(p.edits)
            facts = self.facts
            removed = {key: removed_uses(outermost(edits, facts), facts) for key, edits in by_file.items()}
            stack = [
                dependent
                for p in carried
                for dependent in self.dependents.get(id(p), ())
                if id(dependent) not in seen and self.removes_a_use_left(dependent, deleted, removed)
            ]
        return carried

    def removes_a_use_left(self, dependent: Planned, names: set[str], removed: dict[int, Counter]) -> bool:
        """Whether `dependent` removes a use of one of `names` that its file keeps after the `removed` uses."""
        unit = self.owners.get(id(dependent))
        if unit is None or unit.analysis is None:
            return False
        uses = self.facts.uses([e.node for e in dependent.edits])
        left = unit.analysis.facts.name_uses
        gone = removed.get(id(unit), Counter())
        return any(uses[name] > 0 and left[name] - gone[name] > 0 for name in names)

    def replacements(self, unit: Unit, planned: Planned) -> tuple[tuple, tuple]:
        """What this fix alone changes: (regions of its own file, (path, regions) of each other file)."""
        if not self.options.replacements:
            return (), ()
        by_unit: dict[int, tuple[Unit, list]] = {}
        for current in self.carried(planned):
            owner = self.owners.get(id(current), unit)
            by_unit.setdefault(id(owner), (owner, []))[1].extend(current.edits)
        own: tuple = ()
        elsewhere = []
        for owner, edits in by_unit.values():
            key = (id(owner), frozenset(map(id, edits)))  # fixes that carry each other carry the same edits
            if key not in self.regions:
                from fsdp_unpatch.fixes.regions import file_regions

                assert owner.analysis is not None  # a fix's owner was analysed
                self.regions[key] = file_regions(owner.analysis, edits, self.facts)
            regions = self.regions[key]
            if owner is unit:
                own = regions
            elif regions:
                elsewhere.append((owner.candidate.display, regions))
        return own, tuple(sorted(elsewhere))

    def finish(self, unit: Unit, memo: dict[int, bool], selected: set[int]) -> FileResult:
        display = unit.candidate.display
        result = FileResult(display, original=unit.source.data if unit.source else None)
        if unit.error is not None:
            result.findings.append(unit.error)
            return result
        analysis = unit.analysis
        if analysis is None and unit.on_ast is not None:
            return on_ast.finish(unit, result, selected, self.catalog)
        if analysis is None or not analysis.planned:
            return result
        result.encoding = analysis.module.encoding
        by_planned: list[tuple[Planned, Finding]] = []
        for planned in analysis.planned:
            if id(planned) not in selected:
                continue
            if planned.moot_with is not None and self.fixable(planned.moot_with, selected, memo):
                continue  # about code the fix deletes
            where = unit.position(planned.node)
            rule = self.catalog.rule(planned.code)
            fix = None
            if self.fixable(planned, selected, memo):
                own, elsewhere = self.replacements(unit, planned)
                fix = Fix(self.applicability(planned), f"{rule.name}: {rule.summary}", own, elsewhere)
            finding = Finding(
                code=planned.code,
                category=rule.category,
                path=display,
                span=Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1),
                message=planned.message,
                target=planned.target,
                fix=fix,
                detail=planned.detail,
            )
            by_planned.append((planned, finding))
            result.findings.append(finding)
        if self.options.fix:
            self.apply(unit, result, by_planned)
        return result

    def apply(self, unit: Unit, result: FileResult, by_planned: list[tuple[Planned, Finding]]) -> None:
        """Plan the file's new content; written later, with its group (`transaction.py`)."""
        import libcst as cst

        from fsdp_unpatch.fixes.edits import apply_edits
        from fsdp_unpatch.fixes.module_edits import deletes_file
        from fsdp_unpatch.run.write_groups import why_not_written

        applied = [
            (p, f)
            for p, f in by_planned
            if f.fix is not None and (f.fix.applicability == "safe" or self.options.unsafe_fixes)
        ]
        if not applied:
            return
        assert unit.analysis is not None and unit.source is not None
        self.applied[id(unit)] = [p for p, _ in applied]
        refusal = why_not_written(unit)
        if refusal is not None:
            self.block(unit, result, refusal)
            return
        edits = [e for p, _ in applied for e in p.edits]
        try:
            fixed_module = apply_edits(unit.analysis, edits, self.facts)
            module = keep_line_endings(unit.analysis.module, fixed_module, unit.source.data)
            fixed = module.bytes
        except RecursionError:
            self.block(
                unit,
                result,
                SourceError("write", "too deeply nested to rewrite (Python's recursion limit); not written"),
            )
            return
        # (a module the fix deletes whole has nothing to put back)
        data = fixed if unit.excerpt is None or deletes_file(edits) else unit.excerpt.splice(fixed)
        if data is None:
            self.block(unit, result, SourceError("write", "the fix lost a placeholder; not written"))
            return
        if data == unit.source.data:
            return
        try:
            # An excerpt's statements held aside parse on their own, at top level: the excerpt's parse covers them.
            on_big_stack(lambda: cst.parse_module(fixed))
        except Exception as error:  # the fix must never leave a file that does not parse
            self.block(unit, result, SourceError("write", f"fixed text does not parse ({error}); not written"))
            return
        result.deleted = deletes_file(edits)  # a test module left with nothing (FSU305)
        result.fixed = data
        result.change = Change(unit.source, data, result.deleted)
        for _, finding in applied:
            finding.fixed = True

    def block(self, unit: Unit, result: FileResult, error: SourceError) -> None:
        """This file's fix cannot be made: neither can those of its group."""
        result.findings.append(error_finding(result.display, error))
        self.blockers[id(unit)] = str(error)

    def selection(self) -> set[int]:
        return {id(planned) for unit in self.units for planned in self.reported(unit)}

    def reported(self, unit: Unit) -> list[Planned]:
        """The file's findings the run reports: selected for the file, and not silenced by a `# noqa`."""
        source = unit.source
        lines: Optional[dict[int, int]] = None  # the `ast` model's lines; an analysed file's are placed on need
        if source is None:
            return []
        if unit.analysis is not None:
            encoding, planned = unit.analysis.module.encoding, unit.analysis.planned
        elif unit.on_ast is not None:  # decided on the `ast` model: UTF-8 files only
            encoding, planned = "utf-8", [p for p, _ in unit.on_ast.planned]
            lines = {id(p): where.start_line for p, where in unit.on_ast.planned}
        else:
            return []

        def line(planned: Planned) -> int:
            return lines[id(planned)] if lines is not None else unit.position(planned.node).start.line

        display = unit.candidate.display
        return reported(
            [p for p in planned if self.options.selected(p.code, display)],
            line,
            lambda: source.data.decode(encoding, "replace"),
            ignore_noqa=self.options.ignore_noqa,
        )

    def settle(self) -> set[int]:
        """The findings reported and the last cross-file decisions, made once: `results` may be asked again."""
        if self.selected is None:
            self.selected = self.selection()
            self.decide(keep_called_installers(self.units, self.selected))
            self.decide(keep_named_outside(self.units, self.options))
            for unit in self.units:
                for planned in unit.analysis.planned if unit.analysis is not None else ():
                    self.owners[id(planned)] = unit
                    for required in planned.requires:
                        self.dependents.setdefault(id(required), []).append(planned)
        return self.selected

    def again(self, options: RunOptions) -> RunResult:
        """The results of the same analysed and linked files under `options` that differ from the run's only in
        what is done with the fixes (`check`'s dry fix, `dry_fix.py`): nothing is analysed again."""
        if _but_outputs(options) != _but_outputs(self.options):
            raise ValueError("options differ in more than what is done with the fixes")
        self.options, self.applied, self.blockers = options, {}, {}
        return self.results()

    def results(self) -> RunResult:
        selected = self.settle()
        memo: dict[int, bool] = {}
        files = [self.finish(unit, memo, selected) for unit in self.units]
        for unit, file_result in zip(self.units, files):
            file_result.findings.extend(unused_noqa_findings(unit, self.options, self.catalog))
        groups: list[list[int]] = []
        blockers: dict[int, str] = {}
        if self.applied or self.blockers:  # a fix was made or refused: its file may be written with others
            from fsdp_unpatch.run.write_groups import write_groups

            groups, blockers = write_groups(self.units, self.applied, self.blockers)
        for group in groups:
            blocker = next((i for i in group if i in blockers), None)
            if blocker is not None:
                hold_back(files, group, blocker, blockers[blocker])
        if self.guards_imports:
            paths = [str(unit.candidate.path) for unit in self.units]
            buffers = {i: u.candidate.data for i, u in enumerate(self.units) if u.candidate.data is not None}
            if self.options.fix:
                guard(files, groups, paths, roots_of(self.options, paths, [paths[i] for i in buffers]))
            report_imports(files, paths, buffers, self.options, self.catalog)
        if self.options.write:
            commit_groups(files, groups)
        unsafe_left = sum(
            1
            for r in files
            for f in r.findings
            if f.fix is not None and f.fix.applicability == "unsafe" and not f.fixed
        )
        return RunResult(files=files, unsafe_fixes_left=unsafe_left if self.options.fix else 0, transactions=groups)


def _but_outputs(options: RunOptions) -> RunOptions:
    return replace(options, fix=False, write=False, unsafe_fixes=False, replacements=False)


def run_together(
    candidates: Iterable[Candidate],
    catalog: Catalog,
    options: RunOptions,
    *,
    guard: bool = True,
    learned: Optional[Learned] = None,
    kept: Optional[list[Run]] = None,
) -> RunResult:
    """The engine over all `candidates` at once, in this process: the reference `run` must agree with.
    `guard=False`: a part of a run, whose caller runs the import net over the whole; `learned`: what earlier
    phases of the run know of the files; `kept`: receives the engine, to ask its results `again`."""
    engine = Run(catalog, options, learned)
    engine.guards_imports = guard
    engine.load(candidates)
    engine.link()
    if kept is not None:
        kept.append(engine)
    return engine.results()
