"""What every format says of a finding's fix, so all count the same (issue 31, item 3): a fix whose group
`fix` cannot write now (`Finding.held_back`) is held back, never fixable, whatever its applicability."""

from __future__ import annotations

from typing import Optional

from fsdp_unpatch.model import Finding

HELD_BACK = "held back"


def fix_state(finding: Finding) -> Optional[str]:
    """ "safe" or "unsafe" (a fix `fix` can write), "held back", or None (no fix, or already fixed)."""
    if finding.fix is None or finding.fixed:
        return None
    if finding.held_back is not None:
        return HELD_BACK
    return finding.fix.applicability
