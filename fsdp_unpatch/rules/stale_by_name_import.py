"""FSU401 (stale-by-name-import): a name another FSDP2 module imported by name is patched in one module only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.decisions import Drop
    from fsdp_unpatch.analysis.patched import Incomplete, Patched
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Patches
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.model import SemanticModel


def incomplete_by_name(patched: Iterable[Patched], catalog: Catalog, releases: Sequence[Version]) -> list[Incomplete]:
    """FSU401 candidates in one file: patched names whose by-name twin the file does not patch and
    FSDP2's code reads in one of the torch releases (an unread stale copy changes nothing). The message
    names the oldest such release."""
    from fsdp_unpatch.analysis.patched import Incomplete, by_name_counterparts, is_read

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


def check_file(patches: Patches, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """In one file: each patched name whose by-name twin it leaves stale (not when a reload after the
    patch copies it), recorded with the twin it misses for the run's check. Checked even when deselected:
    the batch layer links the files that patch a missing twin by what it records."""
    items = incomplete_by_name(patches.patched, catalog, options.releases)
    if not items:
        return  # (the `ast` model asks this too: no libcst-based module is loaded for nothing)
    from fsdp_unpatch.analysis.planned import Planned

    for item in items:
        if reloaded_after(analysis, catalog, item.site.install, item.missing):
            continue  # the reload copied the patch into the by-name binding
        planned = Planned(STALE_BY_NAME_IMPORT.code, item.site.install.report, item.message, item.site.target)
        patches.incomplete.append((item, planned))
        yield planned


RELOADERS = ("importlib.reload", "imp.reload")


def reloaded_after(analysis: ModuleSubject, catalog: Catalog, install: Any, missing: str) -> bool:
    """Whether `missing` (a by-name copy, "module.name") is refreshed by `importlib.reload(module)` after
    `install` (a `collect.RawInstall`), in the same function (or both at module level): reloading M re-runs its
    `from .source import name`, so M's by-name copy then holds the patch too. The reloads are read from the
    file's `ast` model (`module_entries.py`): a file without one has none."""
    from fsdp_unpatch.analysis.module_entries import reloads
    from fsdp_unpatch.semantic.names import target_id

    module = missing.split(".")[0]
    if not any(e.module == module and f"{e.module}.{e.name}" == missing for e in catalog.by_name_imports):
        return False  # reloading the source module would re-define the original, not copy the patch
    model = analysis.model
    if model is None:
        return False
    installed = analysis.position(install.report).start
    functions = []  # the functions of the reloads after the install
    for reload in reloads(model, analysis.text()):
        if reload.callee is None or reload.argument is None:
            continue
        if model.table.qualify_dotted(reload.callee) not in RELOADERS:
            continue
        reloaded = model.table.qualify_dotted(reload.argument)
        if target_id(reloaded, catalog) == module and analysis.position(reload.at).start.line > installed.line:
            functions.append(reload.function)
    return bool(functions) and _function_at(analysis, model, (installed.line, installed.column)) in functions


def _function_at(analysis: ModuleSubject, model: SemanticModel, where: tuple[int, int]) -> Optional[int]:
    """The index of the innermost function whose `def` holds `where` (the place of a statement in its body)."""
    from fsdp_unpatch.analysis.planned import Located

    found: Optional[tuple[tuple[int, int], int]] = None
    for index, function in enumerate(model.functions):
        span = function.span
        at = analysis.position(Located(span.start_line, span.start_column, span.end_line, span.end_column))
        start, end = (at.start.line, at.start.column), (at.end.line, at.end.column)
        if start <= where <= end and (found is None or found[0] < start):
            found = start, index
    return None if found is None else found[1]


def check(analyses: Sequence[Any], catalog: Catalog, options: Options) -> Iterator[Drop]:
    """Across the run: a finding whose missing counterpart another file of the run patches is dropped.

    `analyses`: the run's analysed files (each planned its findings with the counterpart each misses in
    `incomplete`, and recorded what it patches in `patched`)."""
    from fsdp_unpatch.analysis.decisions import Drop

    patched_in_run = {p.target for analysis in analyses for p in analysis.patched}
    for analysis in analyses:
        for item, planned in analysis.incomplete:
            if item.missing in patched_in_run and planned in analysis.planned:
                yield Drop(analysis, planned)


STALE_BY_NAME_IMPORT = declare(
    "FSU401",
    "stale-by-name-import",
    role="stale-by-name-import",
    category="review",
    fix="none",
    phase="file",
    summary="A name another FSDP2 module imported by name is patched in one module only",
    messages="`{target}` is patched but `{missing}` is not: {why}; patch `{missing}` too (torch {version})",
    exports=("patched-targets", "unpatched-twins"),
    check=check,
    subject="run",
    also={"patches": check_file},
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    feeds_others=True,
    doc="""
    ## What it does
    Reports a patch of one binding of a name that another FSDP2 module imported by name
    (`_fsdp_param_group` did `from ._fsdp_collectives import foreach_reduce, foreach_all_gather, ...`;
    the names, per torch release, are in the catalog's `by_name_imports`), when its twin is patched
    neither in the same file nor in another file of the run. Reported only when FSDP2's code of the
    target torch release reads the unpatched binding (the catalog's `callers`, per release), and not when
    the importing module is reloaded (`importlib.reload(_fsdp_param_group)`) after the patch in the same
    scope.

    ## Why
    Patching `_fsdp_collectives.foreach_reduce` rebinds the name in `_fsdp_collectives` only:
    FSDPParamGroup keeps calling the original through its own binding. The reverse, patching only
    `_fsdp_param_group.foreach_reduce`, leaves every other caller on the original. Patching an attribute
    of a class through both modules is a different case: see FSU402.

    ## Example
    ```python
    _fsdp_collectives.foreach_reduce = _npu_foreach_reduce  # FSU401: _fsdp_param_group.foreach_reduce is not
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce
_fsdp_param_group.foreach_reduce = _reduce
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce
"""
    )
]
