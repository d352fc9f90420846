"""Files that must come out of `fix` byte-identical, with the findings their first line expects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import check_tree, fix_tree
from tests.upstream import expand

FIXTURES = Path(__file__).parent / "fixtures" / "unchanged"
CASES = sorted(p.name for p in FIXTURES.glob("*.py"))


def _expected(text: str) -> tuple[list[str], str]:
    codes = re.match(r"# expect:(.*)\n", text)
    assert codes, "each fixture starts with `# expect: CODES`"
    torch = re.search(r"^# target-torch: (\S+)$", text, re.MULTILINE)
    return sorted(codes.group(1).split()), torch.group(1) if torch else "2.13"


@pytest.mark.parametrize("case", CASES)
def test_left_byte_identical_with_expected_findings(case: str, tmp_path: Path) -> None:
    source = expand((FIXTURES / case).read_text())
    codes, torch = _expected(source)
    target = tmp_path / case
    target.write_bytes(source.encode())
    found = sorted(f.code for f in check_tree(tmp_path, torch=torch).findings)
    assert found == codes
    result = fix_tree(tmp_path, torch=torch)
    assert not result.changed
    assert target.read_bytes() == source.encode()
