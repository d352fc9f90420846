"""What the human formats leave out unless asked: findings that ask nothing of the reader.

`keep` findings (the enhance patch, FSU201, and the other overrides kept on purpose) are counted in every
summary but listed by `full`, `concise`, `grouped` and `github` only with `--show-kept` (`-v`): a failing
hook or a pull request's annotations then show what needs work. The machine formats list every finding.
"""

from __future__ import annotations

from typing import Iterable

from fsdp_unpatch.model import Finding
from fsdp_unpatch.reporting import ReportContext

QUIET_CATEGORIES = frozenset({"keep"})


def listed(findings: Iterable[Finding], context: ReportContext) -> list[Finding]:
    """The findings a human format lists: all with `--show-kept`, else all but the quiet ones."""
    return [f for f in findings if context.show_kept or f.category not in QUIET_CATEGORIES]


def hidden(findings: Iterable[Finding], context: ReportContext) -> int:
    """How many findings `listed` leaves out."""
    return 0 if context.show_kept else sum(1 for f in findings if f.category in QUIET_CATEGORIES)
