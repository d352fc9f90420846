"""Per-file analysis: find the parts of FSDP2 monkey-patches and plan their fixes.

A patch has parts — install sites, the replacement functions they install, the installer that holds
them, the installer's calls — and the analysis sees them as one thing: a replacement is removed only
with all its install sites, an installer only when nothing is left for it to install.

`analyze_module` handles one file; what other files of the run decide (calls of an installer that is
removed elsewhere) is added by the run's linking step. The steps, in the order they run: install sites
(`install_sites.py`, each decided once by `semantic/sites.py`), patch completeness (`other_overrides.py`),
replacements (`replacements.py`), installers (`installers.py`), same-device copies (`copies.py`), then the
rules that check a module themselves and the calls of the installers that go. Each step decides what the
engine must decide (which site is proven, which replacement and installer go with it) and hands the
subject to the rules of its kind through the one dispatcher (`dispatch.py`); no step imports a rule.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional

import libcst as cst

from fsdp_unpatch.analysis import copies, install_sites, installers, other_overrides, replacements, site_judging
from fsdp_unpatch.analysis.collect import collect
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.excerpt import Excerpt
from fsdp_unpatch.analysis.file_analysis import FileAnalysis, Installer
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Edit, Planned
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic.names import ImportTable, is_fsdp2_private, target_id

_NOQA = re.compile(rb"noqa", re.IGNORECASE)

# What the rest of the tool imports from here.
__all__ = ["Edit", "FileAnalysis", "Installer", "Options", "Planned", "analyze_module"]


def analyze_module(
    module: cst.Module,
    module_name: str,
    is_package: bool,
    catalog: Catalog,
    options: Options,
    excerpt: Optional[Excerpt] = None,
    linked: Optional[Mapping[str, str]] = None,
    data: Optional[bytes] = None,
) -> FileAnalysis:
    """The findings of one module; `excerpt`: the module is the excerpt of a large file (`excerpt.py`);
    `linked`: names other files of the run bind to FSDP2 (`ImportTable.linked`); `data`: the bytes `module`
    was parsed from (None: its code is generated)."""
    table = ImportTable(module_name, is_package, linked)
    result = FileAnalysis(module=module, module_name=module_name, facts=collect(module, table))
    result.spells_noqa = None if data is None else _NOQA.search(data) is not None
    if excerpt is not None:  # uses in the statements held aside count (the import clean-up reads them)
        result.facts.name_uses.update(excerpt.hidden.uses)
        result.file_line = excerpt.file_line
        result.file_column = excerpt.file_column
        result.file_text = excerpt.file_text
        result.hidden = excerpt.hidden

    judge = site_judging.planner_judge(result, data, is_package, linked, catalog, options)
    state = PlanState(result, catalog, options, judge)
    result.module_aliases = module_aliases(result, catalog)
    install_sites.plan_install_sites(state)
    other_overrides.plan_completeness(state)
    install_sites.merge_chained(state)
    replacements.plan_replacements(state)
    installers.plan_installers(state)
    replacements.plan_freed_replacements(state)
    copies.plan_copies(state)
    result.planned.extend(dispatch("module", result, catalog, options=options))
    removable = {i.qualified: i.finding for i in result.installers if i.removable}
    result.planned.extend(dispatch("installer-calls", result, removable, catalog, options=options))
    return result


def module_aliases(result: FileAnalysis, catalog: Catalog) -> dict[str, str]:
    """Module-level aliases and imports of FSDP2 modules and classes, which other files may import."""
    table = result.facts.table
    module_level = {local for local, _, function in result.facts.aliases if function is None} | set(table.sources)
    found = {}
    for local in module_level:
        qualified = table.bindings.get(local)
        target = target_id(qualified, catalog) if qualified else None
        if qualified in catalog.fsdp2_roots or (
            target is not None
            and is_fsdp2_private(target, catalog)
            and (target.count(".") == 0 or target.split(".")[-1] in catalog.classes)
        ):
            found[local] = qualified
    return found  # type: ignore[return-value]
