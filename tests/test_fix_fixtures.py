"""Before/after fixture pairs: `fsdp-unpatch fix` on `NAME.in.py` must give `NAME.out.py` exactly."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.upstream import expand
from tests.helpers import fix_tree

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))


@pytest.mark.parametrize("case", CASES)
def test_fix_gives_expected_output(case: str, tmp_path: Path) -> None:
    source = expand((FIXTURES / f"{case}.in.py").read_text())
    expected = expand((FIXTURES / f"{case}.out.py").read_text())
    target = tmp_path / f"{case}.py"
    target.write_text(source)
    first = fix_tree(tmp_path)
    assert target.read_text() == expected
    assert first.changed, "the fixture holds a patch, so the fix must change it"
    second = fix_tree(tmp_path)
    assert not second.changed, "a second fix must find nothing more to do"
    assert target.read_text() == expected
