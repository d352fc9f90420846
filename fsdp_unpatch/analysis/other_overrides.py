"""Whether the file's patches are complete: a by-name binding left stale, a class patched twice, an op's
`.default` order. (Kernel registrations and patches in tests are their rules' own checks, FSU103 and FSU202.)"""

from __future__ import annotations

from fsdp_unpatch.analysis import scoping
from fsdp_unpatch.analysis.patched import Patched
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.rules.op_default_after_packet import OP_DEFAULT_AFTER_PACKET, defaults_after_packet
from fsdp_unpatch.rules.op_default_not_replaced import OP_DEFAULT_NOT_REPLACED, packets_without_default
from fsdp_unpatch.rules.redundant_class_patch import REDUNDANT_CLASS_PATCH, redundant_class_patches
from fsdp_unpatch.rules.stale_by_name_import import STALE_BY_NAME_IMPORT, incomplete_by_name


def relative(state: PlanState, qualified: str) -> str:
    """A qualified name under an FSDP2 root, without the root."""
    for root in state.catalog.fsdp2_roots:
        if qualified.startswith(root + "."):
            return qualified[len(root) + 1 :]
    return qualified


def plan_completeness(state: PlanState) -> None:
    """What the file's overrides patch (the run's completeness rules read it), and what they leave
    incomplete here: a by-name binding left stale, a class patched twice, an op's `.default` out of order."""
    for install in state.facts.installs:
        if install.attribute == "__code__" or not state.verdicts.get(id(install), scoping.Verdict(True)).override:
            continue
        qualified, target = state.judge.resolve_target(install)
        if qualified is not None and target is not None:
            state.result.patched.append(Patched(install, qualified, target))
    patched = state.result.patched
    for item in incomplete_by_name(patched, state.catalog, state.options.releases):
        if scoping.reloaded_after(state.facts, state.catalog, item.site.install, item.missing, state.line):
            continue  # the reload copied the patch into the by-name binding
        planned = state.add(
            Planned(STALE_BY_NAME_IMPORT.code, item.site.install.report, item.message, item.site.target)
        )
        state.result.incomplete.append((item, planned))
    for earlier, later in redundant_class_patches(patched, dict(state.catalog.classes)):
        state.add(
            Planned(
                REDUNDANT_CLASS_PATCH.code,
                later.install.report,
                REDUNDANT_CLASS_PATCH.message(
                    later=relative(state, later.qualified),
                    earlier=relative(state, earlier.qualified),
                    line=state.result.position(earlier.install.report).start.line,
                ),
                later.target,
            )
        )
    op_defaults = [(OP_DEFAULT_AFTER_PACKET.code, *found) for found in defaults_after_packet(patched)]
    op_defaults += [(OP_DEFAULT_NOT_REPLACED.code, *found) for found in packets_without_default(patched)]
    for code, site, message in op_defaults:
        # Moot when the fix deletes the site: the order of its assignments no longer matters.
        moot_with = state.removed_sites.get(id(site.install.removable))
        state.add(Planned(code, site.install.report, message, site.target, moot_with=moot_with))
