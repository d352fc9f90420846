"""What the file's overrides patch, handed to the rules that check a file's patches together (the
dispatcher): a by-name binding left stale (FSU401), a class patched twice (FSU402), an op's `.default`
order (FSU403, FSU404). (Kernel registrations and patches in tests are their rules' own checks, FSU103 and
FSU202.)"""

from __future__ import annotations

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.patched import Patched
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.subjects import Patches
from fsdp_unpatch.semantic.scope_verdict import Verdict


def plan_completeness(state: PlanState) -> None:
    """What the file's overrides patch (the run's completeness rules read it), and what the rules say of
    it here."""
    for install in state.facts.installs:
        if install.attribute == "__code__" or not state.verdicts.get(id(install), Verdict(True)).override:
            continue
        qualified, target = state.judge.resolve_target(install)
        if qualified is not None and target is not None:
            state.result.patched.append(Patched(install, qualified, target))
    patches = Patches(state.result.patched, state.removed_sites, state.result.incomplete)
    state.result.planned.extend(dispatch("patches", patches, state.result, state.catalog, options=state.options))
