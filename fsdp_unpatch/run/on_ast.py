"""Files whose findings the `ast` model builds (`analysis/ast_findings.py`), as the engine holds them: decided
when a file is loaded, reported as the libcst analysis would report them, and parsed after all when the run
links files (what another file's analysis reads of this one, or changes in it, stays libcst's)."""

from __future__ import annotations

from typing import Sequence

from fsdp_unpatch.analysis.ast_findings import findings_on_ast
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.model import FileResult, Finding, RunOptions, Span
from fsdp_unpatch.run.module_aliases import exporters_imported_elsewhere
from fsdp_unpatch.run.unit import Unit


def decide(unit: Unit, catalog: Catalog, options: RunOptions) -> bool:
    """Whether the file's findings were built from the model (`unit.on_ast`): only for a `check` (a fix is
    libcst's to write), a file analysed alone, below the size of an excerpt."""
    assert unit.source is not None
    data = unit.source.data
    if not options.ast_findings or options.fix or unit.linked is not None or len(data) >= options.excerpt_above:
        return False
    unit.on_ast = findings_on_ast(data, unit.candidate.path, catalog, options.analysis)
    return unit.on_ast is not None


def to_parse(units: Sequence[Unit], catalog: Catalog) -> list[Unit]:
    """The files decided on the model that the run's linking must see analysed with libcst: all of them, once
    any file of the run is analysed (its cross-file steps read every analysis) or may export an FSDP2 alias."""
    decided = [u for u in units if u.on_ast is not None]
    if decided and (any(u.analysis is not None for u in units) or exporters_imported_elsewhere(units, catalog)):
        return decided
    return []


def finish(unit: Unit, result: FileResult, chosen: set[int], catalog: Catalog) -> FileResult:
    """The file's result (`Run.finish`): no finding has a fix."""
    assert unit.on_ast is not None
    result.encoding = "utf-8"  # `ast_findings` decides UTF-8 files only
    for planned, where in unit.on_ast.planned:
        if id(planned) in chosen:
            result.findings.append(
                Finding(
                    code=planned.code,
                    category=catalog.rule(planned.code).category,
                    path=result.display,
                    span=Span(where.start_line, where.start_column + 1, where.end_line, where.end_column + 1),
                    message=planned.message,
                    target=planned.target,
                    fix=None,
                    detail=planned.detail,
                )
            )
    return result


def nothing_to_link(units: Sequence[Unit]) -> bool:
    """Whether the run's cross-file steps (`Run.link`) have nothing to do: no file is analysed with libcst, and
    each is skipped, unreadable or decided on the model. Those steps read analyses, and parse only the files
    that spell a name of a known patch module, which no file decided on the model spells (`findings_on_ast`)."""
    return all(
        unit.analysis is None and (unit.skipped or unit.error is not None or unit.on_ast is not None) for unit in units
    )
