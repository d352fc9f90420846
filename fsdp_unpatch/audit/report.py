"""The audit's reports: a Markdown table for a review, in the reader's language, or JSON for programs (English)."""

from __future__ import annotations

from fsdp_unpatch.audit.call_sites import FAST_PATH, KINDS, CallSite
from fsdp_unpatch.i18n import N_, ngettext, translated
from fsdp_unpatch.i18n import gettext as _

COLUMNS = (N_("Call site"), N_("Kind"), N_("Same-device fast path"), N_("What decides it"), N_("Re-test"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(sites: list[CallSite]) -> str:
    files = len({s.path for s in sites})
    heading = ngettext(
        "`torch._foreach_copy_` call sites: {count} in {files} file.",
        "`torch._foreach_copy_` call sites: {count} in {files} files.",
        files,
    ).format(count=len(sites), files=files)
    lines = [
        heading,
        "",
        "| " + " | ".join(_(column) for column in COLUMNS) + " |",
        "|" + " --- |" * len(COLUMNS),
    ]
    for site in sites:
        where = _("`{path}:{line}` `{function}`: `{code}`").format(
            path=site.path, line=site.line, function=site.function, code=site.code
        )
        cells = (
            where,
            _(KINDS[site.kind]),
            _(FAST_PATH[site.fast_path]),
            translated(site.decided_by),
            translated(site.retest) if site.retest else "-",
        )
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def as_json(sites: list[CallSite]) -> str:
    import json

    return json.dumps([s.to_dict() for s in sites], indent=2) + "\n"
