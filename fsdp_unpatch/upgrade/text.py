"""The text output of `upgrade` and its Markdown checklist (`--report`), in the chosen language."""

from __future__ import annotations

from fsdp_unpatch.i18n import N_
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.upgrade.analysis import BREAKS

KIND_LABELS = {
    "gone": N_("target gone"),
    "signature": N_("signature"),
    "attribute": N_("attribute"),
    "name": N_("private name"),
    "drops": N_("copy drops upstream changes"),
    "inherits": N_("inherits"),
    "unchanged": N_("unchanged"),
}


def _label(kind: str) -> str:
    return _(KIND_LABELS[kind])


def text(result) -> str:
    lines = []
    for verdict in result.verdicts:
        closest = _(" (closest upstream: torch {version})").format(version=verdict.closest) if verdict.closest else ""
        lines.append(f"{verdict.path}:{verdict.line}: {verdict.target} [{verdict.role}]{closest}")
        for change in verdict.changes:
            at = _(" (line {line})").format(line=change.line) if change.line and change.line != verdict.line else ""
            mark = "!" if change.kind in BREAKS else "-"
            lines.append(f"  {mark} {_label(change.kind)}: {change.message}{at}")
    broken = sum(v.breaks for v in result.verdicts)
    lines.append(
        _("torch {old} -> {new}: {count} overrides that stay, {broken} need work").format(
            old=result.old.version, new=result.new.version, count=len(result.verdicts), broken=broken
        )
    )
    return "\n".join(lines) + "\n"


def checklist(result) -> str:
    lines = [
        "# " + _("Upgrade torch {old} to {new}").format(old=result.old.version, new=result.new.version),
        "",
    ]
    for verdict in result.verdicts:
        done = "x" if not verdict.breaks else " "
        lines.append(f"- [{done}] `{verdict.target}` ({verdict.role}) `{verdict.path}:{verdict.line}`")
        for change in verdict.changes:
            lines.append(f"  - **{_label(change.kind)}**: {change.message}")
    return "\n".join(lines) + "\n"
