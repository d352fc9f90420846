"""Human-readable reports, rendered with rich: `path:line:col: CODE [category] message`."""
from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from rich.text import Text

from fsdp_unpatch.findings import Finding
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.runner import RunResult

STYLES = {"remove": "bold red", "review": "bold yellow", "keep": "bold green", "error": "bold magenta"}


def _console(buffer: io.StringIO, context: ReportContext) -> Console:
    return Console(file=buffer, force_terminal=context.color, no_color=not context.color,
                   width=120, highlight=False, soft_wrap=True)


def _header(finding: Finding) -> Text:
    text = Text()
    text.append(f"{finding.path}:{finding.span.line}:{finding.span.column}:", style="bold")
    text.append(f" {finding.code} ")
    text.append(f"[{finding.category}]", style=STYLES.get(finding.category, ""))
    text.append(f" {finding.message}")
    if finding.fix is not None and not finding.fixed:
        text.append(" (fixable" + (" with --unsafe-fixes)" if finding.fix.applicability == "unsafe" else ")"),
                    style="cyan")
    return text


def _excerpt(lines: list[str], finding: Finding) -> Text:
    text = Text()
    last = min(finding.span.end_line, finding.span.line + 2)
    width = len(str(last))
    for number in range(finding.span.line, last + 1):
        if 1 <= number <= len(lines):
            text.append(f"  {number:>{width}} | ", style="dim")
            text.append(lines[number - 1].rstrip("\r\n") + "\n")
    return text


def summary(result: RunResult, context: ReportContext) -> str:
    remaining = result.remaining
    counts = Counter(f.category for f in remaining)
    parts = [f"{counts[c]} {c}" for c in ("remove", "review", "keep", "error") if counts[c]]
    fixed = sum(1 for f in result.findings if f.fixed)
    fixable = sum(1 for f in remaining if f.fix is not None and f.fix.applicability == "safe")
    scanned = len(result.files)
    line = f"Found {len(remaining)} finding{'s' if len(remaining) != 1 else ''}"
    line += f" ({', '.join(parts)})" if parts else ""
    line += f" in {scanned} file{'s' if scanned != 1 else ''}."
    if context.fix_mode:
        line += f" Fixed {fixed}, changed {len(result.changed)} file{'s' if len(result.changed) != 1 else ''}."
        if result.unsafe_fixes_left:
            line += f" {result.unsafe_fixes_left} unsafe fix{'es' if result.unsafe_fixes_left != 1 else ''} not applied (use --unsafe-fixes)."
    elif fixable:
        line += f" {fixable} fixable with `fsdp-unpatch fix`."
    if context.target_torch:
        line += f" Target torch {context.target_torch} ({context.target_torch_origin})."
    return line


def full(result: RunResult, context: ReportContext) -> str:
    buffer = io.StringIO()
    console = _console(buffer, context)
    for file in result.files:
        lines = None
        for finding in sorted(file.findings, key=Finding.sort_key):
            if finding.fixed:
                continue
            console.print(_header(finding))
            if context.show_source and file.original is not None and finding.category != "error":
                if lines is None:
                    lines = file.original.decode(file.encoding, "replace").splitlines()
                console.print(_excerpt(lines, finding), end="")
    console.print(summary(result, context))
    return buffer.getvalue()


def concise(result: RunResult, context: ReportContext) -> str:
    buffer = io.StringIO()
    console = _console(buffer, context)
    for finding in result.remaining:
        console.print(_header(finding))
    console.print(summary(result, context))
    return buffer.getvalue()
