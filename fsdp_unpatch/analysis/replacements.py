"""Replacements: the function a proven site installs goes with all its install sites, and a replacement
the file names elsewhere only inside code the fix deletes goes too. Which replacement goes, with which
sites and fixes, is decided here, until nothing new is freed; the rule that checks a replacement (FSU002,
through the dispatcher) turns each decision into its finding."""

from __future__ import annotations

import libcst as cst

from fsdp_unpatch.analysis.collect import RawInstall, count_names
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.patterns import descendants
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Edit, Planned
from fsdp_unpatch.analysis.registrations import registered_by_decorator
from fsdp_unpatch.analysis.subjects import Replacement


def plan_replacements(state: PlanState) -> None:
    """A replacement goes when every reference to it is an install site that goes."""
    for name, sites in state.pending.items():
        function = state.judge.replacement_function(sites[0][0])
        if function is None or any(install.partial for install, _ in sites):
            continue
        if registered_by_decorator(function, state.facts):
            continue  # its kernel registration stays (FSU103, review), and the function with it
        if uses(state, name) != len(sites):
            state.held[name] = sites  # named elsewhere too: `plan_freed_replacements` decides
            continue
        plan_replacement(state, name, function, sites, [])


def uses(state: PlanState, name: str) -> int:
    return state.facts.name_uses[name] + (name in state.facts.dunder_all)


def plan_replacement(
    state: PlanState,
    name: str,
    function: cst.FunctionDef,
    sites: list[tuple[RawInstall, Planned]],
    also: list[Planned],
) -> None:
    """Delete the replacement with its install sites (and `also`: the fixes that delete its other uses)."""
    replacement = Replacement(name, function, sites, state.proofs.get(id(function)), also)
    for planned in dispatch("replacement", replacement, state.result, state.catalog, options=state.options):
        state.add(planned)
        if planned.edits and planned.edits[0].node is function:
            state.result.replacements[name] = planned  # the finding whose fix deletes it (FSU002's), not another's


def plan_freed_replacements(state: PlanState) -> None:
    """A replacement the file names elsewhere only inside code the fix deletes (the installer whose guard
    tests for it, another function that goes) goes too, requiring those deletions. Each one planned may
    free another: planned until nothing new is freed, so one fix does what a second would."""
    while state.held:
        deleting = [p for p in state.result.planned if _deleted_nodes(p)]
        inside = count_names(_outermost([n for p in deleting for n in _deleted_nodes(p)]))
        freed = [name for name in state.held if uses(state, name) == inside[name]]
        if not freed:
            return
        for name in freed:
            sites = state.held.pop(name)
            function = state.judge.replacement_function(sites[0][0])
            assert function is not None  # held only with one
            own = {id(p) for _, p in sites}
            also = [p for p in deleting if id(p) not in own and count_names(_outermost(_deleted_nodes(p)))[name]]
            plan_replacement(state, name, function, sites, also)


def _deleted_nodes(planned: Planned) -> list[cst.CSTNode]:
    """The nodes a fix deletes (not those it replaces with other code, nor imports it adds)."""
    return [e.node for e in planned.edits if type(e) is Edit and e.replacement is None]


def _outermost(nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """`nodes` without those inside another of them (a site inside the installer that is deleted whole)."""
    inner = {id(d) for node in nodes for d in descendants(node) if d is not node}
    unique = {id(node): node for node in nodes if id(node) not in inner}
    return list(unique.values())
