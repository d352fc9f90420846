"""reviewdog's Diagnostic Format (rdjson), as ruff's `rdjson` format: one JSON object for `reviewdog -f=rdjson`.

Each finding is a diagnostic with its range, severity, rule code and the code's docs link. A fix whose edits all
lie in the finding's own file is given as suggestions (reviewdog proposes them on the pull request); a fix that
also edits other files is not, since a suggestion cannot reach them and half a fix would break the code.
Columns count UTF-8 bytes, as rdjson's positions do (the engine counts code points).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from fsdp_unpatch import README_URL, rule_url
from fsdp_unpatch.files.lines import python_lines
from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.reporting import ReportContext

SEVERITIES = {"remove": "ERROR", "review": "WARNING", "keep": "INFO", "error": "ERROR"}


def byte_column(line_text: str, column: int) -> int:
    """The 1-based UTF-8 byte column of the 1-based code point `column` of `line_text`."""
    return len(line_text[: column - 1].encode("utf-8", "surrogatepass")) + 1


def _position(lines: Optional[list[str]], line: int, column: int) -> dict:
    text = lines[line - 1] if lines is not None and 0 < line <= len(lines) else ""
    return {"line": line, "column": byte_column(text, column)}


def _range(lines: Optional[list[str]], line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"start": _position(lines, line, column), "end": _position(lines, end_line, end_column)}


def diagnostic(finding: Finding, lines: Optional[list[str]]) -> dict:
    span = finding.span
    entry: dict[str, Any] = {
        "message": finding.message,
        "location": {
            "path": finding.path,
            "range": _range(lines, span.line, span.column, span.end_line, span.end_column),
        },
        "severity": SEVERITIES.get(finding.category, "WARNING"),
        "code": {"value": finding.code, "url": rule_url(finding.code)},
    }
    fix = finding.fix
    if fix is not None and fix.replacements and not fix.elsewhere:
        entry["suggestions"] = [
            {"range": _range(lines, r.line, r.column, r.end_line, r.end_column), "text": r.content}
            for r in fix.replacements
        ]
    return entry


def rdjson_report(result: RunResult, context: ReportContext) -> str:
    texts = {
        f.display: python_lines(f.original.decode(f.encoding, "replace"))
        for f in result.files
        if f.original is not None
    }
    report = {
        "source": {"name": "fsdp-unpatch", "url": README_URL},
        "severity": "WARNING",
        "diagnostics": [diagnostic(f, texts.get(f.path)) for f in result.remaining],
    }
    return json.dumps(report, indent=2) + "\n"
