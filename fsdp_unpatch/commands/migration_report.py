"""`fix --report FILE.md`: the inputs of the merge-request description, checked before anything is fixed,
and the writing of it once the fix is done (`reporting/merge_request.py` writes the text)."""

from __future__ import annotations

import os
from typing import Optional

from fsdp_unpatch.config.request import Request
from fsdp_unpatch.model import RunResult
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting.evidence import Doctor, EvidenceError, Verified, load_doctor, load_verify

Evidence = tuple[Optional[Doctor], Optional[Verified]]


class ReportError(Exception):
    """A `--report` that cannot be written, or evidence that cannot be read; the message names the file."""


def evidence_for(request: Request) -> Evidence:
    """The doctor and verify reports `--report` cites, read and checked; ReportError for bad input."""
    cited = [
        f for f, v in (("--doctor-report", request.doctor_report), ("--verify-report", request.verify_report)) if v
    ]
    if request.report is None:
        if cited:
            raise ReportError(f"{cited[0]} is cited by the merge-request description: give it with --report FILE.md")
        return None, None
    if not request.fix:
        raise ReportError("--report describes a fix: use it with `fix`, `check --fix` or `--diff`")
    if request.from_buffer:
        raise ReportError("--report describes a fix of files on disk; it cannot be combined with standard input")
    folder = os.path.dirname(os.path.abspath(request.report))
    if os.path.isdir(request.report) or not (
        os.access(request.report, os.W_OK)
        if os.path.exists(request.report)
        else os.path.isdir(folder) and os.access(folder, os.W_OK)
    ):
        raise ReportError(f"--report {request.report}: cannot write it (a folder, no such folder, or not writable)")
    try:
        doctor = load_doctor(request.doctor_report) if request.doctor_report else None
        verified = load_verify(request.verify_report) if request.verify_report else None
    except EvidenceError as error:
        raise ReportError(str(error)) from None
    return doctor, verified


def write_report(request: Request, result: RunResult, context: ReportContext, evidence: Evidence) -> None:
    from fsdp_unpatch.reporting.merge_request import merge_request

    assert request.report is not None
    text = merge_request(result, context, *evidence)
    try:
        with open(request.report, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        written = "; the fixes were written" if request.writes and result.changed else ""
        raise ReportError(f"--report {request.report}: cannot write it ({error.strerror or error}){written}") from None
