"""`# noqa` comments: which findings the source itself asks to leave alone."""
from __future__ import annotations

import re
from typing import Optional

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def noqa_codes(lines: list[str], line: int) -> Optional[frozenset[str]]:
    """The codes a `# noqa` on 1-based `line` names; an empty set for a bare `# noqa`; None if none."""
    if not 1 <= line <= len(lines):
        return None
    match = NOQA.search(lines[line - 1])
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(code.upper() for code in re.split(r"[\s,]+", codes) if code)


def is_suppressed(lines: list[str], line: int, code: str) -> bool:
    codes = noqa_codes(lines, line)
    return codes is not None and (not codes or code in codes)
