"""Machine-readable reports: JSON (a list of findings, the contract other tools rely on) and JSON Lines."""

from __future__ import annotations

import json

from fsdp_unpatch.model import RunResult
from fsdp_unpatch.reporting import ReportContext


def json_report(result: RunResult, context: ReportContext) -> str:
    """A JSON list of the findings that remain, sorted by path, line and column."""
    return json.dumps([f.to_dict() for f in result.remaining], indent=2) + "\n"


def json_lines_report(result: RunResult, context: ReportContext) -> str:
    """One JSON object a line, the same objects as `json_report`, for streaming consumers."""
    return "".join(json.dumps(f.to_dict()) + "\n" for f in result.remaining)
