"""Before/after fixture pairs: `fsdp-unpatch fix` on `NAME.in.py` must give `NAME.out.py` exactly.

A fixture whose first line is `# fix: --unsafe-fixes` is fixed with unsafe fixes, and a safe-only fix
must leave it as it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import fix_tree
from tests.upstream import expand

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))


@pytest.mark.parametrize("case", CASES)
def test_fix_gives_expected_output(case: str, tmp_path: Path) -> None:
    source = expand((FIXTURES / f"{case}.in.py").read_text())
    expected = expand((FIXTURES / f"{case}.out.py").read_text())
    target = tmp_path / f"{case}.py"
    target.write_text(source)
    unsafe = source.startswith("# fix: --unsafe-fixes")
    if unsafe:
        assert not fix_tree(tmp_path).changed, "an unsafe fix must not be applied by a safe-only fix"
    first = fix_tree(tmp_path, unsafe_fixes=unsafe)
    assert target.read_text() == expected
    assert first.changed, "the fixture holds a patch, so the fix must change it"
    second = fix_tree(tmp_path, unsafe_fixes=unsafe)
    assert not second.changed, "a second fix must find nothing more to do"
    assert target.read_text() == expected
