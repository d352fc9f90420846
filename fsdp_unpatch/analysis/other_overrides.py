"""Overrides other than by assignment (kernel registrations, patches in tests), and whether the file's
patches are complete: a by-name binding left stale, a class patched twice, an op's `.default` order."""

from __future__ import annotations

import libcst as cst

from fsdp_unpatch.analysis import scoping
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.rules import completeness, overrides
from fsdp_unpatch.rules.kernel_registration import KERNEL_REGISTRATION
from fsdp_unpatch.rules.redundant_class_patch import REDUNDANT_CLASS_PATCH
from fsdp_unpatch.rules.stale_by_name_import import STALE_BY_NAME_IMPORT


def plan_other_overrides(state: PlanState) -> None:
    """Kernel registrations for the fsdp ops, and patches made in tests."""
    # FSDP2's own modules define the fsdp ops: their registrations are the native kernels, not overrides.
    # So does a vendored copy of them, whatever its path: a kernel for an op the file defines is its own.
    native = any(state.result.module_name.startswith(root + ".") for root in state.catalog.fsdp2_roots)
    defined = overrides.defined_ops(state.facts)
    for registration in overrides.kernel_registrations(state.facts):
        if registration.namespace != "fsdp" or native or (registration.namespace, registration.op) in defined:
            continue
        target = f"ops.fsdp.{registration.op}"
        kernel = (
            registration.function.value
            if isinstance(registration.function, cst.Name)
            else next((f.name.value for call, f in state.facts.decorated if call is registration.call), None)
        )
        message = overrides.registration_message(
            registration, state.catalog.targets.get(target), state.options.target_torch, state.result.code, kernel
        )
        state.add(Planned(KERNEL_REGISTRATION.code, registration.call, message, target))
    for code, node, message, patched in overrides.patches_in_tests(state.facts, state.catalog, state.result.code):
        state.add(Planned(code, node, message, patched))


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
            state.result.patched.append(completeness.Patched(install, qualified, target))
    patched = state.result.patched
    for item in completeness.incomplete_by_name(patched, state.catalog, state.options.releases):
        if scoping.reloaded_after(state.facts, state.catalog, item.site.install, item.missing, state.line):
            continue  # the reload copied the patch into the by-name binding
        planned = state.add(
            Planned(STALE_BY_NAME_IMPORT.code, item.site.install.report, item.message, item.site.target)
        )
        state.result.incomplete.append((item, planned))
    for earlier, later in completeness.redundant_class_patches(patched, dict(state.catalog.classes)):
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
    for code, site, message in completeness.op_default_problems(patched):
        # Moot when the fix deletes the site: the order of its assignments no longer matters.
        moot_with = state.removed_sites.get(id(site.install.removable))
        state.add(Planned(code, site.install.report, message, site.target, moot_with=moot_with))
