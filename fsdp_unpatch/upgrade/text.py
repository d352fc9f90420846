"""The text output of `upgrade` and its Markdown checklist (`--report`), in the chosen language.

Every word is the reader's: the kinds, the roles and each change's message (a `Phrase`, whose fields, the
names, code and versions, stay as they are). The JSON (`UpgradeResult.to_dict`) keeps the English.
"""

from __future__ import annotations

from fsdp_unpatch.i18n import N_, translated
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


# the target of the verdict that lists a file's FSDP2 imports the new release no longer defines
IMPORTS = N_("(imports)")
# what the override is to its target (`Verdict.role`)
ROLE_LABELS = {
    "wrapper": N_("wrapper"),
    "copy": N_("copy"),
    "unknown": N_("unknown"),
    "imports": N_("imports"),
}


def _label(kind: str) -> str:
    return _(KIND_LABELS[kind])


def _role(role: str) -> str:
    return _(ROLE_LABELS[role]) if role in ROLE_LABELS else role


def _target(target: str) -> str:
    """The target, or for a file's FSDP2 imports (`run.py`'s "(imports)" verdict) its words."""
    return _(IMPORTS) if target == IMPORTS else target


def text(result) -> str:
    lines = []
    for verdict in result.verdicts:
        closest = _(" (closest upstream: torch {version})").format(version=verdict.closest) if verdict.closest else ""
        lines.append(f"{verdict.path}:{verdict.line}: {_target(verdict.target)} [{_role(verdict.role)}]{closest}")
        for change in verdict.changes:
            at = _(" (line {line})").format(line=change.line) if change.line and change.line != verdict.line else ""
            mark = "!" if change.kind in BREAKS else "-"
            lines.append(
                _("  {mark} {kind}: {message}{at}").format(
                    mark=mark, kind=_label(change.kind), message=translated(change.message), at=at
                )
            )
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
        lines.append(
            _("- [{done}] `{target}` ({role}) `{where}`").format(
                done=done,
                target=_target(verdict.target),
                role=_role(verdict.role),
                where=f"{verdict.path}:{verdict.line}",
            )
        )
        for change in verdict.changes:
            lines.append(
                _("  - **{kind}**: {message}").format(kind=_label(change.kind), message=translated(change.message))
            )
    return "\n".join(lines) + "\n"
