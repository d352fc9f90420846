"""A Markdown summary for a pull-request comment or `$GITHUB_STEP_SUMMARY`: counts by category, a table
of the findings with links to their lines, and the fixes available.

Links go to `ReportContext.link_base + path#Lline`: on GitHub Actions the CLI sets the base to the
commit's files (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/`); elsewhere links are relative.
Keep findings, which never fail a run, are folded away in a `<details>` block. A summary for people, it is
written in the reader's language (the category and applicability words stay as `check` and `explain` print
them); the Action's outputs come from the JSON, never from it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import get_args
from urllib.parse import quote

from fsdp_unpatch.i18n import N_, ngettext
from fsdp_unpatch.i18n import gettext as _
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
    state = fix_state(finding) or ""
    return _(N_("held back")) if state == HELD_BACK else state  # safe, unsafe: as `explain` says them


def _table(findings: list[Finding], context: ReportContext) -> list[str]:
    from fsdp_unpatch.reporting.localize import localized

    columns = (N_("code"), N_("where"), N_("message"), N_("fix"))
    lines = ["| | " + " | ".join(_(column) for column in columns) + " |", "| --- | --- | --- | --- | --- |"]
    for f in findings:
        name = context.catalog.rule(f.code).name if f.code in context.catalog.rules else ""
        lines.append(
            f"| {ICONS.get(f.category, '')} {f.category} | `{f.code}` {name} | {_link(f, context)} "
            f"| {message_cell(localized(f.message))} | {_fix(f)} |"
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
    if failing:
        verdict = ":x: " + ngettext("{count} finding to act on", "{count} findings to act on", failing)
    else:
        verdict = ":white_check_mark: " + _("nothing to fix")
    torch = ""
    if context.target_torch:
        from fsdp_unpatch.reporting.text import target_torch_said

        torch = _(", target torch {target}").format(target=target_torch_said(context)[0])
        if context.target_torch_judged_as:
            torch += _(" (newer than every release known, {newest}: judged as {newest})").format(
                newest=context.target_torch_judged_as
            )
    checked = ngettext(
        "{verdict} ({total} in total, {files} file checked{torch}).",
        "{verdict} ({total} in total, {files} files checked{torch}).",
        files,
    )
    out += [checked.format(verdict=verdict.format(count=failing), total=len(remaining), files=files, torch=torch), ""]
    columns = (N_("category"), N_("findings"), N_("fixable"), N_("held back"))
    out += ["| " + " | ".join(_(column) for column in columns) + " |", "| --- | ---: | ---: | ---: |"]
    out += [f"| {ICONS[c]} {c} | {counts[c]} | {fixable[c]} | {held[c]} |" for c in CATEGORIES]
    acting = [f for f in remaining if f.category != "keep"]
    kept = [f for f in remaining if f.category == "keep"]
    if acting:
        out += ["", "### " + _("Findings"), ""] + _table(acting, context)
    if kept:
        summary = _("{count} kept on purpose (keep findings never fail a run)").format(count=len(kept))
        out += ["", f"<details><summary>{summary}</summary>", ""]
        out += _table(kept, context) + ["", "</details>"]
    safe = sum(1 for f in remaining if f.fixable)
    unsafe = sum(1 for _state_category, state in states if state == "unsafe")
    out += ["", "### " + _("Fixes available"), ""]
    if safe or unsafe or held:
        if safe:
            out.append(
                "- "
                + ngettext(
                    "{count} safe fix: `fsdp-unpatch fix` (preview with `fsdp-unpatch fix --diff`)",
                    "{count} safe fixes: `fsdp-unpatch fix` (preview with `fsdp-unpatch fix --diff`)",
                    safe,
                ).format(count=safe)
            )
        if unsafe:
            out.append(
                "- "
                + ngettext(
                    "{count} unsafe fix (they change what a test suite checks): `fsdp-unpatch fix --unsafe-fixes`",
                    "{count} unsafe fixes (they change what a test suite checks): `fsdp-unpatch fix --unsafe-fixes`",
                    unsafe,
                ).format(count=unsafe)
            )
        if held:
            count = sum(held.values())
            out.append(
                "- "
                + ngettext(
                    "{count} fix held back: `fix` cannot write them now (see each finding)",
                    "{count} fixes held back: `fix` cannot write them now (see each finding)",
                    count,
                ).format(count=count)
            )
    else:
        out.append(_("None."))
    return "\n".join(out) + "\n"
