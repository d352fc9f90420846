"""Install sites: each decided once (`semantic/sites.py`), its verdict said by the rules that check sites
(the dispatcher: FSU001 for a proven copy, FSU101, FSU102, FSU201 for the others, FSU104 for a `__code__`
swap, which no verdict decides).

A proven site is deleted (FSU001); the others stay, and so does the body of the function they install.
A proven site whose target the file also installs in a shape no site stands for (`indirect_installs.py`)
stays too (FSU101): deleting it would leave the override installed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import libcst as cst

from fsdp_unpatch.analysis import indirect_installs
from fsdp_unpatch.analysis.collect import RawInstall
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Edit, Planned
from fsdp_unpatch.analysis.subjects import Site
from fsdp_unpatch.semantic.scope_verdict import Verdict


def plan_install_sites(state: PlanState) -> None:
    """Every site that overrides something (new attributes and restores of saved originals do not:
    `semantic/ast_scoping.py`), with what scoping adds to its message (the releases it overrides in, its
    restores). In a file the model does not judge (`site_judging.Unjudged`) every site counts as an override."""
    state.verdicts = state.judge.scoping(state.facts.installs)
    elsewhere: dict[str, tuple[str, int]] = {}
    if state.facts.installs:
        for found in indirect_installs.found_in(state.result, state.catalog):
            elsewhere.setdefault(found.target, (found.how, state.line(found.node)))
    for install in state.facts.installs:
        verdict = state.verdicts.get(id(install), Verdict(True))
        if not verdict.override:
            continue
        before = len(state.result.planned)
        plan_site(state, install, elsewhere)
        for planned in state.result.planned[before:]:
            planned.message += verdict.note(planned.message, install.attribute)


def plan_site(state: PlanState, install: RawInstall, elsewhere: Mapping[str, tuple[str, int]]) -> None:
    """`elsewhere`: target -> how and where the file also installs it in a shape no site stands for."""
    if install.attribute == "__code__":
        state.result.planned.extend(said(state, Site(install, None)))
        return
    verdict = state.judge.verdict(install)
    if verdict is None:
        return
    also = elsewhere.get(verdict.target)
    if verdict.kind == "proven" and also:
        verdict = replace(verdict, kind="unproven", reason="installed-elsewhere", elsewhere=also)
    if verdict.comparison is not None and verdict.kind in ("proven", "too_old"):
        function = state.judge.replacement_function(install)
        state.proofs[id(function)] = verdict.comparison.evidence
    if verdict.replacement_kept:
        function = state.judge.replacement_function(install)
        if function is not None:
            state.kept_replacements.add(id(function))
    for planned in said(state, Site(install, verdict)):
        state.add(planned)
        if verdict.kind == "proven":  # the site goes (FSU001): its replacement may go with it
            state.removed_sites[id(install.removable)] = planned
            assert isinstance(install.value, cst.Name)
            state.pending.setdefault(install.value.value, []).append((install, planned))


def said(state: PlanState, site: Site) -> list[Planned]:
    """What the rules that check sites say about `site`."""
    return list(dispatch("site", site, state.result, state.catalog, options=state.options))


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
