"""Human-readable reports, rendered with rich: `path:line:col: CODE [category] message`.

rich is imported only when a finding is printed: a run that finds nothing prints its summary as it is.
"""

from __future__ import annotations

import functools
import io
from collections import Counter
from typing import TYPE_CHECKING, Callable, Optional, Union

from fsdp_unpatch.files.lines import python_lines
from fsdp_unpatch.i18n import N_, ngettext
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.i18n import sentences as i18n_sentences
from fsdp_unpatch.model import Finding, Replacement, RunResult
from fsdp_unpatch.quoting import printable, quoted_path
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting.localize import localized
from fsdp_unpatch.reporting.quiet import hidden, listed

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

# Where the target torch came from, as `config/target_torch.py` names it (a declaration names its file instead).
TARGET_ORIGINS = (N_("configuration"), N_("installed torch"), N_("newest known"))
STYLES = {"remove": "bold red", "review": "bold yellow", "keep": "bold green", "error": "bold magenta"}


def _console(buffer: io.StringIO, context: ReportContext) -> Console:
    from rich.console import Console

    return Console(
        file=buffer,
        force_terminal=context.color,
        no_color=not context.color,
        width=120,
        highlight=False,
        soft_wrap=True,
    )


def _plain(text: str) -> bool:
    """Whether rich would print `text` unchanged: no markup, no `:emoji:` code, no tab or control character."""
    return text.isprintable() and "[" not in text and ":" not in text


class _Output:
    """Collects a report; makes rich's console only for what needs it (a finding), not for a plain summary."""

    def __init__(self, context: ReportContext) -> None:
        self.buffer = io.StringIO()
        self._context = context
        self._console: Optional[Console] = None

    def print(self, renderable: Union[str, Text] = "", end: str = "\n") -> None:
        if self._console is None and isinstance(renderable, str) and _plain(renderable):
            self.buffer.write(renderable + end)
            return
        if self._console is None:
            self._console = _console(self.buffer, self._context)
        self._console.print(renderable, end=end)

    def getvalue(self) -> str:
        return self.buffer.getvalue()


def _header(finding: Finding) -> Text:
    from rich.text import Text

    text = Text()
    text.append(f"{quoted_path(finding.path)}:{finding.span.line}:{finding.span.column}:", style="bold")
    text.append(" ")
    text.append_text(_body(finding))
    return text


def _body(finding: Finding) -> Text:
    """`CODE [category] message (fixable)`."""
    from rich.text import Text

    text = Text()
    text.append(f"{finding.code} ")
    text.append(f"[{finding.category}]", style=STYLES.get(finding.category, ""))
    text.append(f" {printable(localized(finding.message))}")
    if finding.held_back is not None and not finding.fixed:
        text.append(" " + _("(fix held back: {why})").format(why=printable(localized(finding.held_back))), style="cyan")
    elif finding.fix is not None and not finding.fixed:
        text.append(
            _(" (fixable with --unsafe-fixes)") if finding.fix.applicability == "unsafe" else _(" (fixable)"),
            style="cyan",
        )
    return text


def _excerpt(lines: list[str], finding: Finding) -> Text:
    from rich.text import Text

    text = Text()
    last = min(finding.span.end_line, finding.span.line + 2)
    width = len(str(last))
    for number in range(finding.span.line, last + 1):
        if 1 <= number <= len(lines):
            text.append(f"  {number:>{width}} | ", style="dim")
            text.append(lines[number - 1].rstrip("\r\n") + "\n")
    return text


def _detail(detail: str) -> Text:
    """A diff against upstream, indented under the excerpt, lines coloured like `git diff`."""
    from rich.text import Text

    text = Text()
    for line in detail.splitlines():
        style = (
            "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else "dim"
            if line.startswith("@")
            else ""
        )
        text.append("    " + line + "\n", style=style)
    return text


def target_torch_said(context: ReportContext) -> tuple[str, str]:
    """The run's target torch and where it came from, in the current language."""
    lowest, to, highest = context.target_torch.partition(" to ")  # "2.8 to 2.13" (TargetTorch's text)
    torch = _("{lowest} to {highest}").format(lowest=lowest, highest=highest) if to else lowest
    origin = _(context.target_torch_origin) if context.target_torch_origin in TARGET_ORIGINS else None
    return torch, origin or context.target_torch_origin


def target_torch_sentence(context: ReportContext) -> str:
    """`Target torch 2.13 (installed torch).`, and when it is newer than every release known, which release it
    was judged as and how to teach the tool a newer one."""
    torch, origin = target_torch_said(context)
    if context.target_torch_judged_as:
        return _(
            "Target torch {torch} ({origin}), newer than every release known ({newest}): judged as {newest}; "
            "`fsdp-unpatch catalog add` teaches a newer one."
        ).format(torch=torch, origin=origin, newest=context.target_torch_judged_as)
    return _("Target torch {torch} ({origin}).").format(torch=torch, origin=origin)


def summary(result: RunResult, context: ReportContext, listing: bool = True) -> str:
    """The closing line; `listing`: the findings were listed above it (so it says which were left out)."""
    remaining = result.remaining
    counts = Counter(f.category for f in remaining)
    parts = [f"{counts[c]} {c}" for c in ("remove", "review", "keep", "error") if counts[c]]
    applied = ("safe", "unsafe") if context.unsafe_fixes else ("safe",)  # what `fix` with these flags applies
    fixable = sum(
        1
        for f in remaining
        if f.fix is not None and f.fix.applicability in applied and not f.fixed and f.held_back is None
    )
    unsafe = context.unsafe_fixes and any(f.fix is not None and f.fix.applicability == "unsafe" for f in remaining)
    held = sum(1 for f in remaining if f.held_back is not None)
    scanned = len(result.files)
    found = ngettext("Found {count} finding", "Found {count} findings", len(remaining)).format(count=len(remaining))
    if parts:
        found = _("{found} ({categories})").format(found=found, categories=_(", ").join(parts))
    files = ngettext("{count} file", "{count} files", scanned).format(count=scanned)
    sentences = [_("{found} in {files}.").format(found=found, files=files)]
    if context.fix_mode:
        sentences.append(fix_summary(result, context))
    elif fixable:
        fixes = _("{count} fixable with `fsdp-unpatch fix --unsafe-fixes`.") if unsafe else None
        sentences.append((fixes or _("{count} fixable with `fsdp-unpatch fix`.")).format(count=fixable))
    if held and not context.fix_mode:
        sentences.append(
            ngettext(
                "{count} fix held back: `fix` cannot write it now.",
                "{count} fixes held back: `fix` cannot write them now.",
                held,
            ).format(count=held)
        )
    if context.target_torch:
        sentences.append(target_torch_sentence(context))
    quiet = hidden(remaining, context) if listing else 0
    if quiet:
        sentences.append(_("{count} kept on purpose not listed (`--show-kept` lists them).").format(count=quiet))
    sentences.append(_("Took {seconds} s.").format(seconds=f"{context.elapsed:.2f}"))
    return i18n_sentences(sentences)


def fix_summary(result: RunResult, context: ReportContext) -> str:
    """`Fixed 9, changed 2 files.`, or with `--diff` (nothing written) `Would fix 9 in 2 files.`"""
    fixed = sum(1 for f in result.findings if f.fixed)
    changed = len(result.changed)
    files = ngettext("{count} file", "{count} files", changed).format(count=changed)
    line = (_("Would fix {fixed} in {files}.") if context.dry_run else _("Fixed {fixed}, changed {files}.")).format(
        fixed=fixed, files=files
    )
    if result.unsafe_fixes_left:
        left = result.unsafe_fixes_left
        unsafe = ngettext(
            "{count} unsafe fix not applied (use --unsafe-fixes).",
            "{count} unsafe fixes not applied (use --unsafe-fixes).",
            left,
        ).format(count=left)
        line = i18n_sentences([line, unsafe])
    return line


PREVIEW_LINES = 6  # per side of a replacement; a deleted function would drown the findings


def _fix_preview(finding: Finding, lines_of: Callable[[str], list[str]]) -> Text:
    """What the finding's fix would change, as diff lines under the finding (`check --show-fixes`), in its
    own file and in the other files whose edits it carries (named in the hunk header)."""
    from rich.text import Text

    text = Text()
    assert finding.fix is not None
    for path, replacements in finding.fix.changes(finding.path):
        lines = lines_of(path)
        where = "" if path == finding.path else f"{path} "
        for replacement in replacements:
            text.append(_hunk(replacement, lines, where))
    return text


def _hunk(replacement: Replacement, lines: list[str], where: str) -> Text:
    from rich.text import Text

    text = Text()
    deleted = [lines[n - 1] for n in range(replacement.line, replacement.end_line) if 1 <= n <= len(lines)]
    text.append(f"    @@ {where}" + _("line {line}").format(line=replacement.line) + " @@\n", style="cyan")
    for sign, chunk, style in (("-", deleted, "red"), ("+", replacement.content.splitlines(), "green")):
        shown = chunk if len(chunk) <= PREVIEW_LINES else chunk[: PREVIEW_LINES - 1]
        for line in shown:
            text.append(f"    {sign} {line}\n", style=style)
        if len(shown) < len(chunk):
            more = len(chunk) - len(shown)
            text.append(f"    {sign} ... " + _("({count} more lines)").format(count=more) + "\n", style=style)
    return text


def fixes_applied(result: RunResult, dry_run: bool = False) -> str:
    """`fix --show-fixes`: the fixes applied (with `--diff`: that would be), by file and rule."""
    out = []
    total = 0
    for file in result.files:
        counts = Counter(f.code for f in file.findings if f.fixed)
        if counts:
            out.append(f"{quoted_path(file.display)}:")
            out.extend(f"    {n} x {code}" for code, n in sorted(counts.items()))
            total += sum(counts.values())
    header = (
        ngettext("Would fix {count} finding", "Would fix {count} findings", total)
        if dry_run
        else ngettext("Fixed {count} finding", "Fixed {count} findings", total)
    ).format(count=total) + (_(":") if total else _("."))
    return "\n".join([header, *out]) + "\n"


def _lines_of(result: RunResult) -> Callable[[str], list[str]]:
    """The lines of a file of the run by its path, decoded once (`--show-fixes` shows them)."""
    files = {file.display: file for file in result.files}

    @functools.cache
    def lines_of(path: str) -> list[str]:
        file = files.get(path)
        if file is None or file.original is None:
            return []
        return python_lines(file.original.decode(file.encoding, "replace"))

    return lines_of


def full(result: RunResult, context: ReportContext) -> str:
    console = _Output(context)
    lines_of = _lines_of(result)
    for file in result.files:
        lines = None
        for finding in listed(sorted(file.findings, key=Finding.sort_key), context):
            if finding.fixed:
                continue
            console.print(_header(finding))
            if context.show_source and file.original is not None and finding.category != "error":
                if lines is None:
                    lines = python_lines(file.original.decode(file.encoding, "replace"))
                console.print(_excerpt(lines, finding), end="")
                if finding.detail:
                    console.print(_detail(finding.detail), end="")
            if context.show_fixes and not context.fix_mode and finding.fix is not None and file.original is not None:
                console.print(_fix_preview(finding, lines_of), end="")
    _closing(console, result, context)
    return console.getvalue()


def _closing(console: _Output, result: RunResult, context: ReportContext) -> None:
    if context.show_fixes and context.fix_mode:
        console.print(fixes_applied(result, context.dry_run), end="")
    if not context.quiet:
        console.print(summary(result, context))


def concise(result: RunResult, context: ReportContext) -> str:
    console = _Output(context)
    for finding in listed(result.remaining, context):
        console.print(_header(finding))
    _closing(console, result, context)
    return console.getvalue()


def grouped(result: RunResult, context: ReportContext) -> str:
    """ruff's `grouped`: a heading per file, then `  line:col CODE [category] message` under it."""
    from rich.text import Text

    console = _Output(context)
    for file in result.files:
        findings = listed(sorted((f for f in file.findings if not f.fixed), key=Finding.sort_key), context)
        if not findings:
            continue
        console.print(Text(f"{quoted_path(file.display)}:", style="bold underline"))
        width = max(len(f"{f.span.line}:{f.span.column}") for f in findings)
        for finding in findings:
            text = Text(f"  {finding.span.line}:{finding.span.column}".ljust(width + 2) + " ")
            text.append_text(_body(finding))
            console.print(text)
        console.print()
    _closing(console, result, context)
    return console.getvalue()
