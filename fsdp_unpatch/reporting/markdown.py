"""A Markdown summary for a pull-request comment or `$GITHUB_STEP_SUMMARY`: counts by category, a table
of the findings with links to their lines, and the fixes available.

Links go to `ReportContext.link_base + path#Lline`: on GitHub Actions the CLI sets the base to the
commit's files (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/`); elsewhere links are relative.
Keep findings, which never fail a run, are folded away in a `<details>` block.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import get_args
from urllib.parse import quote

from fsdp_unpatch.model import Category, Finding, RunResult
from fsdp_unpatch.quoting import printable
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting.fix_state import HELD_BACK, fix_state

CATEGORIES: tuple[Category, ...] = get_args(Category)
ICONS = {"remove": ":x:", "review": ":warning:", "keep": ":information_source:", "error": ":boom:"}


# What Markdown (CommonMark, GFM tables) reads as markup in running text: each is escaped with a backslash.
_MARKUP = re.compile(r"[\\`*_{}\[\]<>()#+!|~&]")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def cell(text: str) -> str:
    """Text safe inside a table cell: pipes escaped, line breaks flattened."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def plain(text: str) -> str:
    """Text shown as itself (a path as link text): every markup character escaped, control characters
    written as escapes, so that a file name cannot close the link, open a tag or break the table."""
    return _MARKUP.sub(lambda m: "\\" + m.group(), printable(text))


def message_cell(text: str) -> str:
    """A finding's message in a cell: its `code spans` stay code; the rest is escaped like `plain`."""
    out, at = [], 0
    for span in _CODE_SPAN.finditer(text):
        out += [plain(text[at : span.start()]), cell(printable(span.group()))]
        at = span.end()
    return "".join(out + [plain(text[at:])])


def _link(finding: Finding, context: ReportContext) -> str:
    where = f"{finding.path}:{finding.span.line}:{finding.span.column}"
    return f"[{plain(where)}]({context.link_base}{quote(finding.path)}#L{finding.span.line})"


def _fix(finding: Finding) -> str:
    return fix_state(finding) or ""


def _table(findings: list[Finding], context: ReportContext) -> list[str]:
    lines = ["| | code | where | message | fix |", "| --- | --- | --- | --- | --- |"]
    for f in findings:
        name = context.catalog.rule(f.code).name if f.code in context.catalog.rules else ""
        lines.append(
            f"| {ICONS.get(f.category, '')} {f.category} | `{f.code}` {name} | {_link(f, context)} "
            f"| {message_cell(f.message)} | {_fix(f)} |"
        )
    return lines


def markdown_report(result: RunResult, context: ReportContext) -> str:
    remaining = result.remaining
    counts = Counter(f.category for f in remaining)
    states = [(f.category, fix_state(f)) for f in remaining]
    fixable = Counter(category for category, state in states if state in ("safe", "unsafe"))
    held = Counter(category for category, state in states if state == HELD_BACK)
    files = len(result.files)
    out = ["## fsdp-unpatch", ""]
    failing = counts["remove"] + counts["review"] + counts["error"]
    verdict = (
        ":white_check_mark: nothing to fix"
        if not failing
        else f":x: {failing} finding{'s' if failing != 1 else ''} to act on"
    )
    torch = f", target torch {context.target_torch}" if context.target_torch else ""
    if context.target_torch and context.target_torch_judged_as:
        newest = context.target_torch_judged_as
        torch += f" (newer than every release known, {newest}: judged as {newest})"
    out += [f"{verdict} ({len(remaining)} in total, {files} file{'s' if files != 1 else ''} checked{torch}).", ""]
    out += ["| category | findings | fixable | held back |", "| --- | ---: | ---: | ---: |"]
    out += [f"| {ICONS[c]} {c} | {counts[c]} | {fixable[c]} | {held[c]} |" for c in CATEGORIES]
    acting = [f for f in remaining if f.category != "keep"]
    kept = [f for f in remaining if f.category == "keep"]
    if acting:
        out += ["", "### Findings", ""] + _table(acting, context)
    if kept:
        out += ["", f"<details><summary>{len(kept)} kept on purpose (keep findings never fail a run)</summary>", ""]
        out += _table(kept, context) + ["", "</details>"]
    safe = sum(1 for f in remaining if f.fixable)
    unsafe = sum(1 for _, state in states if state == "unsafe")
    out += ["", "### Fixes available", ""]
    if safe or unsafe or held:
        if safe:
            out.append(
                f"- {safe} safe fix{'es' if safe != 1 else ''}: `fsdp-unpatch fix` "
                "(preview with `fsdp-unpatch fix --diff`)"
            )
        if unsafe:
            out.append(
                f"- {unsafe} unsafe fix{'es' if unsafe != 1 else ''} (they change what a test suite checks): "
                "`fsdp-unpatch fix --unsafe-fixes`"
            )
        if held:
            count = sum(held.values())
            out.append(
                f"- {count} fix{'es' if count != 1 else ''} held back: `fix` cannot write them now (see each finding)"
            )
    else:
        out.append("None.")
    return "\n".join(out) + "\n"
