"""`fix --report FILE.md`: the inputs of the merge-request description, checked before anything is fixed,
and the writing of it once the fix is done (`reporting/merge_request.py` writes the text)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional, Sequence

from fsdp_unpatch.i18n import gettext as _

if TYPE_CHECKING:
    from fsdp_unpatch.config.discovery import Candidate
    from fsdp_unpatch.config.request import Request
    from fsdp_unpatch.config.settings import Settings
    from fsdp_unpatch.model import RunResult
    from fsdp_unpatch.reporting import ReportContext
    from fsdp_unpatch.reporting.evidence import Doctor, Verified

    Evidence = tuple[Optional[Doctor], Optional[Verified]]


class ReportError(Exception):
    """A `--report` that cannot be written, or evidence that cannot be read; the message names the file."""


def evidence_for(request: Request) -> Evidence:
    """The doctor and verify reports `--report` cites, read and checked; ReportError for bad input."""
    cited = [
        f for f, v in (("--doctor-report", request.doctor_report), ("--verify-report", request.verify_report)) if v
    ]
    shaped = [f for f, v in (("--template", request.report_template), ("--design-doc", request.design_doc)) if v]
    if request.report is None:
        if cited:
            raise ReportError(
                _("{option} is cited by the merge-request description: give it with --report FILE.md").format(
                    option=cited[0]
                )
            )
        if shaped:
            raise ReportError(
                _("{option} shapes the merge-request description: give it with --report FILE.md").format(
                    option=shaped[0]
                )
            )
        return None, None  # every `check` and `fix` without `--report`: the reports' reader is not imported
    from fsdp_unpatch.reporting.evidence import EvidenceError, load_doctor, load_verify

    if not request.fix:
        raise ReportError(_("--report describes a fix: use it with `fix`, `check --fix` or `--diff`"))
    if request.from_buffer:
        raise ReportError(_("--report describes a fix of files on disk; it cannot be combined with standard input"))
    folder = os.path.dirname(os.path.abspath(request.report))
    if os.path.isdir(request.report) or not (
        os.access(request.report, os.W_OK)
        if os.path.exists(request.report)
        else os.path.isdir(folder) and os.access(folder, os.W_OK)
    ):
        raise ReportError(
            _("--report {path}: cannot write it (a folder, no such folder, or not writable)").format(
                path=request.report
            )
        )
    if request.design_doc is not None and not (request.design_doc.strip() and request.design_doc.isprintable()):
        raise ReportError(
            _("--design-doc {value}: give the design document's link on one line").format(
                value=repr(request.design_doc)
            )
        )
    try:
        doctor = load_doctor(request.doctor_report) if request.doctor_report else None
        verified = load_verify(request.verify_report) if request.verify_report else None
    except EvidenceError as error:
        raise ReportError(str(error)) from None
    return doctor, verified


def write_report(
    request: Request,
    result: RunResult,
    context: ReportContext,
    evidence: Evidence,
    settings: Settings,
    candidates: Sequence[Candidate],
) -> None:
    from fsdp_unpatch.audit.call_sites import audit_change
    from fsdp_unpatch.reporting.merge_request import Shape, merge_request, template_for

    assert request.report is not None
    # The call sites of the tree the change starts from, each with what the change does to it: the files the
    # fix changed are audited from their bytes before and after (nothing on disk is both, with or without --diff).
    changes = result.written or result.changed
    before = {f.display: f.original for f in changes}
    after = {f.display: None if f.deleted else f.fixed for f in changes}
    sites = audit_change(candidates, context.catalog, before, after)
    shape = Shape(template_for(settings.report_template), settings.design_doc, sites)
    text = merge_request(result, context, *evidence, shape=shape)
    try:
        with open(request.report, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        written = _("; the fixes were written") if request.writes and result.changed else ""
        raise ReportError(
            _("--report {path}: cannot write it ({error}){written}").format(
                path=request.report, error=error.strerror or error, written=written
            )
        ) from None
