"""What the language server answers, built from one analysis of a buffer: diagnostics, code actions, hover.

The analysis is the engine's, through the Python API (`check_source`, `fix_source`): what `check PATH`
reports and what `fix PATH` writes, were the file PATH the buffer's text (its configuration applies, and
its project: a deletion that another file still names is kept for now). Nothing here analyses code itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from lsprotocol import types

from fsdp_unpatch import rule_url
from fsdp_unpatch.api import Finding, UsageError, check_source, fix_source
from fsdp_unpatch.i18n import N_
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.integrations.lsp_text import (
    Position,
    Units,
    contains,
    decoded,
    encoded,
    end_of,
    overlaps,
    position,
    split_lines,
)

SOURCE = "fsdp-unpatch"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"  # `source.fixAll.fsdp-unpatch`
FIX_ALL_TITLE = N_("fsdp-unpatch: apply every safe fix (as `fix`)")  # said in the server's language

# Remove and review findings fail `check`; keep findings never do and stay quiet (a hint, no squiggle).
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "remove": types.DiagnosticSeverity.Warning,
    "review": types.DiagnosticSeverity.Warning,
    "keep": types.DiagnosticSeverity.Hint,
}


@dataclass
class Analysis:
    """One buffer's text as the engine saw it, and what it found."""

    path: str
    text: str
    findings: list[Finding] = field(default_factory=list)
    problem: Optional[str] = None  # a configuration the engine refused (UsageError): said, not raised
    _fix: Optional[tuple[Optional[str], str]] = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    def fixed(self) -> tuple[Optional[str], str]:
        """The text `fix` makes of the buffer (None when it changes nothing), and why it held a fix back
        (another file imports what it would delete, or no project root to look for importers; else "").
        Computed once, when first asked."""
        if self._fix is None:
            data, encoding = encoded(self.text)
            try:
                done = fix_source(data, self.path, in_project=True)
            except UsageError as error:
                self._fix = None, str(error)
            else:
                why = "; ".join(f.message for f in done.remaining if f.category == "error")
                self._fix = (decoded(done.source, encoding) if done.source != data else None), why
        return self._fix


def analyse(path: str, text: str) -> Analysis:
    data, _ = encoded(text)
    try:
        return Analysis(path, text, check_source(data, path, in_project=True))
    except UsageError as error:
        return Analysis(path, text, problem=str(error))


def _range(start: Position, end: Position) -> types.Range:
    return types.Range(types.Position(*start), types.Position(*end))


def _span(finding: Finding, lines: list[str], units: Units) -> tuple[Position, Position]:
    span = finding.span
    return position(lines, span.line, span.column, units), position(lines, span.end_line, span.end_column, units)


def diagnostics(analysis: Analysis, units: Units) -> list[types.Diagnostic]:
    lines = analysis.lines
    if analysis.problem is not None:
        message = f"fsdp-unpatch: {analysis.problem}"
        return [types.Diagnostic(_range((0, 0), (0, 0)), message, types.DiagnosticSeverity.Error, source=SOURCE)]
    return [_diagnostic(finding, lines, units) for finding in analysis.findings]


def _diagnostic(finding: Finding, lines: list[str], units: Units) -> types.Diagnostic:
    from fsdp_unpatch.reporting.localize import localized

    return types.Diagnostic(
        _range(*_span(finding, lines, units)),
        localized(finding.message),  # the server's language (`--lang`, the locale); the engine's is English
        SEVERITY[finding.category],
        code=finding.code,
        code_description=types.CodeDescription(href=rule_url(finding.code)),
        source=SOURCE,
    )


def _safe_fix(finding: Finding) -> bool:
    """A fix the buffer alone can take: safe, and with no edit in another file."""
    fix = finding.fix
    return fix is not None and fix.applicability == "safe" and bool(fix.replacements) and not fix.elsewhere


def _wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether the client asked for actions of `kind` (`source.fixAll` asks for `source.fixAll.fsdp-unpatch`)."""
    return only is None or any(kind == asked or kind.startswith(asked + ".") for asked in only)


def code_actions(
    analysis: Analysis,
    uri: str,
    asked: types.Range,
    only: Optional[Sequence[str]],
    units: Units,
    show_disabled: bool = False,
) -> list[types.CodeAction]:
    """A quick fix for each finding in the range with a safe fix (its edits carry the fixes it needs), and
    one action that fixes the whole buffer as `fix` does. None when `fix` would change nothing: what it
    refuses as a whole (a group blocked by another file) is not offered piece by piece either; a client
    that shows disabled actions gets the fix-all action disabled, with the reason."""
    fixable = [f for f in analysis.findings if _safe_fix(f)]
    if not fixable:
        return []
    fixed, why = analysis.fixed()
    if fixed is None:
        if not (show_disabled and why and _wanted(FIX_ALL, only)):
            return []
        return [types.CodeAction(title=_(FIX_ALL_TITLE), kind=FIX_ALL, disabled=types.CodeActionDisabled(reason=why))]
    lines = analysis.lines
    actions = []
    if _wanted(types.CodeActionKind.QuickFix.value, only):
        start, end = (asked.start.line, asked.start.character), (asked.end.line, asked.end.character)
        for finding in fixable:
            span = _span(finding, lines, units)
            if not overlaps(*span, start, end):
                continue
            assert finding.fix is not None  # _safe_fix
            edits = [
                types.TextEdit(
                    _range(position(lines, r.line, r.column, units), position(lines, r.end_line, r.end_column, units)),
                    r.content,
                )
                for r in finding.fix.replacements
            ]
            actions.append(
                types.CodeAction(
                    title=f"Fix {finding.code} {finding.fix.description}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[_diagnostic(finding, lines, units)],
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                )
            )
    if _wanted(FIX_ALL, only):
        whole = types.TextEdit(_range((0, 0), end_of(lines, units)), fixed)
        actions.append(
            types.CodeAction(
                title=_(FIX_ALL_TITLE),
                kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={uri: [whole]}),
            )
        )
    return actions


def hover(analysis: Analysis, point: Position, units: Units) -> Optional[types.Hover]:
    """The `explain` text of each rule with a finding at `point`."""
    from fsdp_unpatch.commands.docs import explain_markdown

    lines = analysis.lines
    found = [(f, _span(f, lines, units)) for f in analysis.findings]
    here = [(f, span) for f, span in found if contains(*span, point)]
    if not here:
        return None
    codes = list(dict.fromkeys(f.code for f, _ in here))
    text = "\n\n---\n\n".join(explain_markdown(code) for code in codes)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), _range(*here[0][1]))
