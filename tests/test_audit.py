"""`fsdp-unpatch audit foreach-copy`: the review table, its JSON form, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
TREE = FIXTURES / "audit"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True, text=True)


def test_markdown_table_as_a_reviewer_wrote_it() -> None:
    result = cli("audit", "foreach-copy", cwd=TREE)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (FIXTURES / "audit_expected" / "foreach_copy.md").read_text()


def test_json_form() -> None:
    result = cli("audit", "foreach-copy", "--format", "json", ".", cwd=TREE)
    assert result.returncode == 0, result.stderr
    sites = json.loads(result.stdout)
    assert {s["kind"] for s in sites} == {
        "fsdp2-collectives",
        "graph-replay",
        "lowering-registration",
        "host-device-test",
        "mocked",
        "other",
    }
    d2h = next(s for s in sites if s["function"].endswith("test_foreach_copy_d2h"))
    assert d2h["path"] == "test/test_npu.py" and (d2h["line"], d2h["column"]) == (9, 9)
    assert d2h["destination"] == {"expression": "dst", "device": "pinned cpu", "evidence": "`pin_memory=True`"}
    assert d2h["source"]["device"] == "npu" and d2h["non_blocking"] == "True" and d2h["fast_path"] == "no"
    assert d2h["kind_label"] == "host-device copy in tests"
    d2d = next(s for s in sites if s["function"].endswith("test_foreach_copy_d2d"))
    assert d2d["destination"]["device"] == "npu" and d2d["non_blocking"] is None and d2d["fast_path"] == "yes"
    mocked = [s for s in sites if s["kind"] == "mocked"]
    assert [s["line"] for s in mocked] == [7, 12] and all(s["source"] is None for s in mocked)
    aliased = next(s for s in sites if s["path"] == "tools/checkpoint.py")
    assert aliased["code"] == "foreach_copy(params, saved)"  # `from torch import _foreach_copy_ as ...`


def test_unreadable_file_is_named_and_the_rest_reported(tmp_path: Path) -> None:
    shutil.copytree(TREE, tmp_path / "tree")
    (tmp_path / "tree" / "broken.py").write_text("torch._foreach_copy_(a, b\n")
    result = cli("audit", "foreach-copy", "tree", cwd=tmp_path)
    assert result.returncode == 2
    assert "tree/broken.py:" in result.stderr and "syntax error" in result.stderr
    assert "call sites: 10 in 6 files" in result.stdout


def test_missing_path() -> None:
    result = cli("audit", "foreach-copy", "no-such-folder", cwd=TREE)
    assert result.returncode == 2 and "no-such-folder" in result.stderr


def test_a_call_whose_operands_are_not_written_out_is_audited_as_unknown(tmp_path: Path) -> None:
    (tmp_path / "copies.py").write_text(
        "import torch\n\n\ndef restore(pair):\n    torch._foreach_copy_(*pair, non_blocking=True)\n"
    )
    result = cli("audit", "foreach-copy", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (site,) = json.loads(result.stdout)
    assert (site["line"], site["fast_path"], site["destination"]) == (5, "unknown", None)
    assert "operands are not written out" in site["decided_by"] and "non_blocking=True" in site["decided_by"]
