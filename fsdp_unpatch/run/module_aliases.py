"""Names one file binds to FSDP2 modules or classes that other files import (`compat.py`:
`fsm = torch...._fully_shard`; `from .compat import fsm; fsm.FSDPModule.x = f`): the engine analyses such an
importer again as if it spelled the full path. One step: an alias of an imported alias is not followed, and
the importing file must hold an FSDP token (`fsdp`, an FSDP2 class name), as for the batch layer
(`batch._alias_links`)."""

from __future__ import annotations

from typing import Sequence

from fsdp_unpatch.analysis.byte_search import imports_from
from fsdp_unpatch.analysis.prefilter import prefilter_for
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.project.identity import module_name as module_name_of
from fsdp_unpatch.run.unit import Unit


def exporters_imported_elsewhere(units: Sequence[Unit], catalog: Catalog) -> list[Unit]:
    """Files not analysed yet that may bind names to FSDP2 modules or classes which another of `units`
    imports from them (a project's own modules only: torch's re-exports are torch's)."""
    prefilter = prefilter_for(catalog)
    found = []
    for unit in units:
        if unit.analysis is not None or unit.source is None or unit.error is not None or unit.skipped:
            continue
        module = module_name_of(unit.candidate.path, real=True)[0]
        if not module or in_torch(module):
            continue
        names = prefilter.fsdp2_bindings(unit.source.data)
        if names and any(
            other is not unit
            and other.source is not None
            and prefilter.has_token(other.source.data)
            and imports_from(other.source.data, module.rsplit(".", 1)[-1], names)
            for other in units
        ):
            found.append(unit)
    return found


def in_torch(module: str) -> bool:
    """torch's own modules: their re-exports of FSDP2 names are torch's public API, not a project's aliases."""
    return module == "torch" or module.startswith("torch.")


def exported_aliases(units: Sequence[Unit]) -> dict[str, str]:
    """`module.local` -> the FSDP2 module or class it names, for every alias the analysed files bind (torch's
    own re-exports left out)."""
    return {
        f"{u.analysis.module_name}.{local}": qualified
        for u in units
        if u.analysis is not None and u.analysis.module_name and not in_torch(u.analysis.module_name)
        for local, qualified in u.analysis.module_aliases.items()
    }


def importers_of(exported: dict[str, str], units: Sequence[Unit], catalog: Catalog) -> list[Unit]:
    """The files to analyse again with `exported` known: they spell an alias's module and name, hold an FSDP
    token, and (if analysed already) import an alias of another file."""
    if not exported:
        return []
    prefilter = prefilter_for(catalog)
    spellings = {tuple(key.rsplit(".", 2)[-2:]) for key in exported}  # (module's last name, local name)
    found = []
    for unit in units:
        if unit.source is None or unit.error is not None or unit.skipped:
            continue
        data = unit.source.data
        if not any(
            module.encode("utf-8", "surrogateescape") in data and local.encode("utf-8", "surrogateescape") in data
            for module, local in spellings
        ):
            continue
        if not prefilter.has_token(data):
            continue
        if unit.analysis is not None:  # analysed already: again only if it imports another file's alias
            foreign = [k for k in exported if k.rsplit(".", 1)[0] != unit.analysis.module_name]
            bound = unit.analysis.table.bindings.values()
            if not any(k == b or k.startswith(b + ".") or b.startswith(k + ".") for b in bound for k in foreign):
                continue
        found.append(unit)
    return found
