"""Install sites: each decided once (`semantic/sites.py`), its verdict said by the rule that owns its kind.

A proven site is deleted (FSU001); the others stay, and so does the body of the function they install.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from fsdp_unpatch.analysis import scoping
from fsdp_unpatch.analysis.collect import RawInstall
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Edit, Planned
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.rules import collective_override, enhance_patch, native_path_too_old, overrides, unproven_override
from fsdp_unpatch.semantic.verdicts import Kind, SiteVerdict

# The rule that says each kind of verdict.
SITE_REPORTS: dict[Kind, Callable[[RawInstall, SiteVerdict], Planned]] = {
    "proven": collective_override.report,
    "too_old": native_path_too_old.report,
    "unproven": unproven_override.report,
    "unknown": unproven_override.report,
    "reviewed": unproven_override.report,
    "outside_enhance": unproven_override.report,
    "enhance": enhance_patch.report,
    "configured_keep": enhance_patch.report,
}


def plan_install_sites(state: PlanState) -> None:
    """Every site that overrides something (new attributes and restores of saved originals do not:
    `scoping.py`), with what scoping adds to its message (the releases it overrides in, its restores)."""
    state.verdicts = scoping.verdicts(state.facts, state.catalog, load_symbols(), state.judge.fsdp2_target, state.line)
    for install in state.facts.installs:
        verdict = state.verdicts.get(id(install), scoping.Verdict(True))
        if not verdict.override:
            continue
        before = len(state.result.planned)
        plan_site(state, install)
        for planned in state.result.planned[before:]:
            planned.message += verdict.note(planned.message, install.attribute)


def plan_site(state: PlanState, install: RawInstall) -> None:
    if install.attribute == "__code__":
        swap = overrides.code_swap(install, state.facts, state.catalog, state.result.code)
        if swap is not None:
            state.add(Planned(swap[0], swap[1], swap[2], swap[3]))
        return
    verdict = state.judge.verdict(install)
    if verdict is None:
        return
    if verdict.comparison is not None and verdict.kind in ("proven", "too_old"):
        function = state.judge.replacement_function(install)
        state.proofs[id(function)] = verdict.comparison.evidence
    if verdict.replacement_kept:
        function = state.judge.replacement_function(install)
        if function is not None:
            state.kept_replacements.add(id(function))
    planned = state.add(SITE_REPORTS[verdict.kind](install, verdict))
    if verdict.kind == "proven":
        state.removed_sites[id(install.removable)] = planned
        assert isinstance(install.value, cst.Name)
        state.pending.setdefault(install.value.value, []).append((install, planned))


def merge_chained(state: PlanState) -> None:
    """`a.x = b.y = f` with every target removed: delete the statement, not each target."""
    by_statement: dict[int, list[RawInstall]] = {}
    for install in state.facts.installs:
        if install.partial:
            by_statement.setdefault(id(install.statement), []).append(install)
    for installs in by_statement.values():
        if not all(id(i.removable) in state.removed_sites for i in installs):
            continue
        planned = [state.removed_sites.pop(id(i.removable)) for i in installs]
        for install, finding in zip(installs, planned):
            assert install.statement is not None  # grouped by it
            finding.edits = [Edit(install.statement)]
            install.removable = install.statement
        state.removed_sites[id(installs[0].statement)] = planned[0]
