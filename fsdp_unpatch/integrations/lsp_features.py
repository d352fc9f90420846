"""What the language server answers, built from one analysis of a buffer: diagnostics, code actions, hover.

The analysis is the engine's, through the Python API (`check_source`, `fix_source`): what `check .` reports
and what `fix .` writes in the project's root for the file PATH, were that file the buffer's text (its
configuration applies, and the rest of its project as on disk: a fix that deletes an installer also removes
its calls in other files). Nothing here analyses code itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from lsprotocol import types

from fsdp_unpatch import rule_url
from fsdp_unpatch.api import Finding, FixedFile, UsageError, check_source, fix_source
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
from fsdp_unpatch.rules.registry import role_of

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


@dataclass(frozen=True)
class FixAll:
    """What `fix` makes of the buffer and of the other files it changes with it."""

    text: Optional[str]  # the buffer's new text; None when `fix` changes nothing in it
    why: str = ""  # why it holds a fix back (another file imports what it would delete, no project root...)
    others: tuple[FixedFile, ...] = ()  # the other files it writes with the buffer (all or nothing)


@dataclass
class Analysis:
    """One buffer's text as the engine saw it, and what it found."""

    path: str
    text: str
    findings: list[Finding] = field(default_factory=list)
    problem: Optional[str] = None  # a configuration the engine refused (UsageError): said, not raised
    _fix: Optional[FixAll] = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    def fixed(self) -> FixAll:
        """What `fix .` in the project makes of the buffer and of the files that go with it. Computed once,
        when first asked."""
        if self._fix is None:
            data, encoding = encoded(self.text)
            try:
                done = fix_source(data, self.path, in_project=True)
            except UsageError as error:
                self._fix = FixAll(None, str(error))
            else:
                why = "; ".join(f.message for f in done.remaining if f.category == "error")
                text = decoded(done.source, encoding) if done.source != data else None
                self._fix = FixAll(text, why, done.elsewhere if text is not None else ())
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
        # the server's language (`--lang`, the locale); the engine's is English. What the fix cannot do is
        # said as `check` says it: a client that shows no disabled action still sees why nothing is offered.
        localized(finding.message) + _fix_note(finding),
        SEVERITY[finding.category],
        code=finding.code,
        code_description=types.CodeDescription(href=rule_url(finding.code)),
        source=SOURCE,
    )


def _fix_note(finding: Finding) -> str:
    """What `check` appends about a fix that is not simply there to apply: held back, unsafe, or none."""
    from fsdp_unpatch.reporting.localize import localized

    fix = finding.fix
    if finding.held_back is not None:
        return " " + _("(fix held back: {why})").format(why=localized(finding.held_back))
    if fix is not None and fix.applicability == "unsafe":
        return _(" (fixable with --unsafe-fixes)")
    if fix is None and finding.category in ("remove", "review"):
        return _(" (no automatic fix)")
    return ""


def _safe_fix(finding: Finding) -> bool:
    """A fix the buffer alone can take: safe, not held back, and with no edit in another file."""
    fix = finding.fix
    return (
        fix is not None
        and fix.applicability == "safe"
        and bool(fix.replacements)
        and not fix.elsewhere
        and finding.held_back is None
    )


def _wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether the client asked for actions of `kind` (`source.fixAll` asks for `source.fixAll.fsdp-unpatch`)."""
    return only is None or any(kind == asked or kind.startswith(asked + ".") for asked in only)


# What each rule's quick fix does to the code the finding spans (`{subject}`: a function's name, an install
# site's target), by the rule's role (`registry.Role`); the titles name it, so that the fixes of one rule in a
# menu are told apart.
QUICK_FIX_TITLES = {
    "proven-override": N_("Delete the override `{subject}` ({code})"),
    "replacement": N_("Delete `{subject}` with its install sites ({code})"),
    "installer": N_("Delete the installer `{subject}` ({code})"),
    "installer-call": N_("Delete `{subject}`, which calls a removed installer ({code})"),
    "reference-rewrite": N_("Rewrite `{subject}` to its native FSDP2 counterpart ({code})"),
}
OTHER_FIX_TITLE = N_("Fix {code} at `{subject}`")
SUBJECT_WIDTH = 60  # characters of a subject a title shows; longer ones keep their end (the attribute)


def quick_fix_title(finding: Finding, lines: list[str]) -> str:
    """The title of a finding's quick fix: what it does, and to which function or target."""
    role = role_of(finding.code)
    template = QUICK_FIX_TITLES.get(role, OTHER_FIX_TITLE) if role is not None else OTHER_FIX_TITLE
    return _(template).format(code=finding.code, subject=_subject(finding, lines))


def _subject(finding: Finding, lines: list[str]) -> str:
    """The code the finding spans (one line), else its target, else its line."""
    span = finding.span
    text = ""
    if span.line == span.end_line and 1 <= span.line <= len(lines):
        text = lines[span.line - 1].rstrip("\r\n")[span.column - 1 : span.end_column - 1].strip()
    text = " ".join(text.split()) or finding.target or _("line {line}").format(line=span.line)
    return text if len(text) <= SUBJECT_WIDTH else "\u2026" + text[-(SUBJECT_WIDTH - 1) :]


def _no_quick_fix(finding: Finding, offered: bool, why_not: str) -> Optional[str]:
    """Why a finding gets no quick fix (None: nothing is to be done, it is kept on purpose). `offered`:
    whether the fix-all action is; `why_not`: why it is not."""
    from fsdp_unpatch.reporting.localize import localized

    fix = finding.fix
    if finding.category == "keep":
        return None
    if finding.category == "error":
        return localized(finding.message)
    if finding.held_back is not None:
        return _("fix held back: {why}").format(why=localized(finding.held_back))
    if fix is None:
        return _("no automatic fix for {code}: change the code by hand (`fsdp-unpatch explain {code}`)").format(
            code=finding.code
        )
    if fix.applicability == "unsafe":
        return _("an unsafe fix: `fsdp-unpatch fix --unsafe-fixes` applies it; the editor offers safe fixes only")
    if fix.elsewhere:
        files = ", ".join(path for path, _edits in fix.elsewhere)
        if offered:
            return _("its fix changes other files too ({files}): the fix-all action applies it with them").format(
                files=files
            )
        return _("its fix changes other files too ({files}): {why}").format(files=files, why=why_not)
    return why_not or None


def _told_apart(actions: list[types.CodeAction], findings: list[Finding]) -> None:
    """Titles that two quick fixes share (one target installed twice) get their lines."""
    from collections import Counter

    counts = Counter(action.title for action in actions)
    for action, finding in zip(actions, findings):
        if counts[action.title] > 1:
            action.title += " " + _("(line {line})").format(line=finding.span.line)


def code_actions(
    analysis: Analysis,
    uri: str,
    asked: types.Range,
    only: Optional[Sequence[str]],
    units: Units,
    show_disabled: bool = False,
    buffer_of: Callable[[str], Optional[str]] = lambda path: None,
) -> list[types.CodeAction]:
    """A quick fix for each finding in the range with a safe fix that stays in the buffer (its edits carry
    the fixes it needs), and one action that does what `fix .` in the project does to the buffer and to the
    files that go with it. None when `fix` would change nothing: what it refuses as a whole (a group blocked
    by another file) is not offered piece by piece either. A client that shows disabled actions gets, for
    each finding in the range that cannot be fixed from here, a disabled quick fix with the reason, and the
    fix-all action disabled, with the reason, when `fix` holds it back. `buffer_of(path)`: the text of the
    file at `path` when the editor has it open (a file that goes with the fix must be as on disk)."""
    safe = [f for f in analysis.findings if f.fix is not None and f.fix.applicability == "safe"]
    fix_all = analysis.fixed() if safe else None
    lines = analysis.lines
    start, end = (asked.start.line, asked.start.character), (asked.end.line, asked.end.character)
    here = [f for f in analysis.findings if overlaps(*_span(f, lines, units), start, end)]
    actions: list[types.CodeAction] = []
    edit, why_not = (None, "") if fix_all is None else _fix_all_edit(fix_all, uri, lines, units, buffer_of)
    if _wanted(types.CodeActionKind.QuickFix.value, only):
        quick: list[Finding] = []
        for finding in here:
            if edit is not None and _safe_fix(finding):
                actions.append(_quick_fix(finding, uri, lines, units))
            elif show_disabled and (reason := _no_quick_fix(finding, edit is not None, why_not)):
                actions.append(
                    types.CodeAction(
                        title=quick_fix_title(finding, lines),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[_diagnostic(finding, lines, units)],
                        disabled=types.CodeActionDisabled(reason=reason),
                    )
                )
            else:
                continue
            quick.append(finding)
        _told_apart(actions, quick)
    if _wanted(FIX_ALL, only) and fix_all is not None:
        if edit is not None:
            actions.append(types.CodeAction(title=_(FIX_ALL_TITLE), kind=FIX_ALL, edit=edit))
        elif show_disabled and why_not:
            actions.append(
                types.CodeAction(title=_(FIX_ALL_TITLE), kind=FIX_ALL, disabled=types.CodeActionDisabled(why_not))
            )
    return actions


def _quick_fix(finding: Finding, uri: str, lines: list[str], units: Units) -> types.CodeAction:
    assert finding.fix is not None  # _safe_fix
    edits = [
        types.TextEdit(
            _range(position(lines, r.line, r.column, units), position(lines, r.end_line, r.end_column, units)),
            r.content,
        )
        for r in finding.fix.replacements
    ]
    return types.CodeAction(
        title=quick_fix_title(finding, lines),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[_diagnostic(finding, lines, units)],
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def _fix_all_edit(
    fix_all: FixAll, uri: str, lines: list[str], units: Units, buffer_of: Callable[[str], Optional[str]]
) -> tuple[Optional[types.WorkspaceEdit], str]:
    """The fix-all action's edit: the buffer's whole text, and each file that goes with it, replaced by what
    `fix` writes; or None and why not."""
    import os
    from pathlib import Path

    if fix_all.text is None:
        return None, fix_all.why
    changes = {uri: [types.TextEdit(_range((0, 0), end_of(lines, units)), fix_all.text)]}
    for other in fix_all.others:
        path = os.path.abspath(other.path)
        original, new = decoded(other.original, other.encoding), decoded(other.source, other.encoding)
        if other.deleted:
            return None, _("the fix deletes {path}, which this action does not do: run `fsdp-unpatch fix`").format(
                path=other.path
            )
        open_text = buffer_of(path)
        if open_text is not None and open_text != original:
            return None, _("the fix also changes {path}, which has unsaved changes: save it first").format(
                path=other.path
            )
        old_lines = split_lines(original)
        changes[Path(path).as_uri()] = [types.TextEdit(_range((0, 0), end_of(old_lines, units)), new)]
    return types.WorkspaceEdit(changes=changes), ""


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
