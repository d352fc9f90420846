"""The audit's reports: a Markdown table for a review, or JSON for programs."""

from __future__ import annotations

from fsdp_unpatch.audit.call_sites import KINDS, CallSite


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(sites: list[CallSite]) -> str:
    files = len({s.path for s in sites})
    lines = [
        f"`torch._foreach_copy_` call sites: {len(sites)} in {files} file{'s' if files != 1 else ''}.",
        "",
        "| Call site | Kind | Same-device fast path | What decides it | Re-test |",
        "| --- | --- | --- | --- | --- |",
    ]
    for site in sites:
        where = f"`{site.path}:{site.line}` `{site.function}`: `{site.code}`"
        lines.append(
            f"| {_cell(where)} | {KINDS[site.kind]} | {site.fast_path} | {_cell(site.decided_by)} | "
            f"{_cell(site.retest or '-')} |"
        )
    return "\n".join(lines) + "\n"


def as_json(sites: list[CallSite]) -> str:
    import json

    return json.dumps([s.to_dict() for s in sites], indent=2) + "\n"
