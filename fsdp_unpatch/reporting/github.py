"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation a finding (a kept one
only with `--show-kept`: a pull request's annotations show what needs work).

    ::error file=pkg/patch.py,line=3,col=1,endLine=3,endColumn=40,title=fsdp-unpatch (FSU001)::message

The runner turns these lines into annotations on the diff. Values are escaped as the runner's
toolkit does: `%`, CR and LF everywhere, and `:` and `,` in properties as well; other control characters
(an ESC) are written as C escapes (`\\033`).
"""

from __future__ import annotations

from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.quoting import printable
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting.fix_state import HELD_BACK, fix_state
from fsdp_unpatch.reporting.quiet import listed

COMMANDS = {"remove": "error", "review": "warning", "keep": "notice", "error": "error"}


def escape_data(value: str) -> str:
    # then the other control characters as C escapes: an ESC would reach the log raw
    return printable(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    span = finding.span
    properties = {
        "file": finding.path,
        "line": str(span.line),
        "col": str(span.column),
        "endLine": str(span.end_line),
        "endColumn": str(span.end_column),
        "title": f"fsdp-unpatch ({finding.code})",
    }
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    message = f"{finding.code} [{finding.category}] {finding.message}"
    if fix_state(finding) == HELD_BACK:  # as the text format says it: never counted as fixable
        message += f" (fix held back: {finding.held_back})"
    return f"::{COMMANDS.get(finding.category, 'warning')} {rendered}::{escape_data(message)}"


def github_report(result: RunResult, context: ReportContext) -> str:
    return "".join(annotation(f) + "\n" for f in listed(result.remaining, context))
