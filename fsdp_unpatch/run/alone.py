"""Phase 1 of a run (`batch.py`): each file through the engine alone, in worker processes when it pays, giving
its result and the keys by which other files could change it (`Outcome`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Collection, Optional, Sequence

from fsdp_unpatch.analysis.prefilter import prefilter_for
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.discovery import Candidate
from fsdp_unpatch.files.reading import SourceFile
from fsdp_unpatch.files.signals import checkpoint
from fsdp_unpatch.model import Outcome, RunOptions
from fsdp_unpatch.run.learned import Learned
from fsdp_unpatch.run.pool import WORKER, forked_map, pool_size


def cross_file_keys(engine) -> dict[str, frozenset[str]]:
    """What a one-file engine run exports to the other files, by cross-file key: the keys the rule
    registry's rules declare (`Rule.exports`, `rules.registry.CrossFileKey`); see `batch.py`'s docstring."""
    analyses = [u.analysis for u in engine.units if u.analysis is not None]
    names: set[str] = set()
    patched: set[str] = set()
    missing: set[str] = set()
    if analyses:  # libcst's: loaded only when a file was analysed with it
        import libcst as cst

        from fsdp_unpatch.run.removals import from_run

        names.update(from_run(engine.catalog, analyses).names())
    for analysis in analyses:
        names.update(i.qualified.rsplit(".", 1)[-1] for i in analysis.installers)
        names.update(analysis.replacements)
        for planned in analysis.planned:
            for edit in planned.edits:
                node = edit.node
                if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    names.add(node.name.value)
        patched.update(p.target for p in getattr(analysis, "patched", ()))
        missing.update(item.missing for item, _ in getattr(analysis, "incomplete", ()))
    for unit in engine.units:  # a file decided on the `ast` model patches what it reports (`run/on_ast.py`)
        patched.update(unit.on_ast.patched if unit.on_ast is not None else ())
    return {
        "deleted-names": frozenset(names),
        "patched-targets": frozenset(patched),
        "unpatched-twins": frozenset(missing),
    }


def names_a_patch_part(source: SourceFile, catalog: Catalog) -> bool:
    """Whether the file spells a part of a known patch module: linked with every other file that does."""
    return any(name.encode() in source.data for name in prefilter_for(catalog).vocabulary.patch_names)


def analyze_alone(
    candidate: Candidate,
    source: SourceFile,
    catalog: Catalog,
    options: RunOptions,
    learned: Optional[Learned] = None,
    grouped: bool = False,
) -> Outcome:
    """The engine over this one file; the fix is computed, never written (the caller decides). `learned`: kept
    for the linked phase (its tree, if the file looks linked or the budget allows). `grouped`: the linked phase
    is sure to analyse the file again with others and to replace its result, and nothing keeps this one (no
    cache): its fix is neither applied nor given its regions (its findings and keys are those of a full run)."""
    from fsdp_unpatch.run.engine import Run

    checkpoint()
    options = replace(options, write=False, screen=False)  # the caller screened it
    if grouped:
        options = replace(options, fix=False, replacements=False)
    engine = Run(catalog, options, learned)
    engine.guards_imports = False  # the caller guards the whole run at once
    engine.load([replace(candidate, data=source.data)])
    engine.link()
    result = engine.results().files[0]
    keys = cross_file_keys(engine)
    together = names_a_patch_part(source, catalog)
    outcome = Outcome(result, keys["deleted-names"], together, keys["patched-targets"], keys["unpatched-twins"])
    if learned is not None:
        linked = together or bool(outcome.exports or outcome.patched or outcome.missing)
        learned.settle((candidate.display, source.data), linked)
    return outcome


def _work(job: tuple[Candidate, SourceFile, bool]) -> Outcome:
    candidate, source, grouped = job
    return analyze_alone(candidate, source, WORKER["catalog"], WORKER["options"], None, grouped)


def analyze_all(
    jobs: Sequence[tuple[Candidate, SourceFile]],
    catalog: Catalog,
    options: RunOptions,
    workers: int,
    learned: Optional[Learned] = None,
    grouped: Collection[int] = (),
) -> list[Outcome]:
    """Each file alone; in this process, what the engine learns of each goes to `learned`. `grouped`: the
    indices of the jobs whose result the linked phase is sure to replace (`analyze_alone`)."""
    size = sum(len(source.data) for _, source in jobs)
    workers = pool_size(workers, len(jobs), size)
    if workers <= 1:
        return [analyze_alone(c, s, catalog, options, learned, i in grouped) for i, (c, s) in enumerate(jobs)]
    # Largest first, so that no worker is left with a big file at the end; results come back in order.
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][1].data))
    outcomes = forked_map(_work, [(*jobs[i], i in grouped) for i in order], workers, catalog, options)
    ordered: list[Optional[Outcome]] = [None] * len(jobs)
    for position, outcome in zip(order, outcomes):
        ordered[position] = outcome
    return ordered  # type: ignore[return-value]
