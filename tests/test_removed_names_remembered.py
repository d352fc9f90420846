"""Names a fix removed stay known on later runs (issue 12, finding 4; README, "What fix remembers").

torch-npu's own test `test/test_torch_npu_init.py` runs code in a subprocess that imports
`_patched_all_gather_copy_in`: FSU304 before the fix. After `fix` deleted the function, a second `check` must
still report those strings (that test would fail), even though the patch module is in the run and no longer
defines the name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PATCH = (
    Path(__file__).resolve().parent.parent / "examples/legacy_project/legacy_npu/distributed/fsdp/_add_fsdp_patch.py"
)

SUBPROCESS_TEST = """import subprocess
import sys


def test_patch_is_importable():
    code = "from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in"
    subprocess.check_call([sys.executable, "-c", code])
"""


def _torch_npu(root: Path) -> Path:
    package = root / "torch_npu" / "distributed" / "fsdp"
    package.mkdir(parents=True)
    for folder in (root / "torch_npu", root / "torch_npu" / "distributed", package):
        (folder / "__init__.py").write_text("")
    # the collectives patch alone: once fixed, nothing FSDP-related is left for the prefilter to see
    collectives = PATCH.read_text().split("# ----------")[0]
    (package / "_add_fsdp_patch.py").write_text(collectives.replace("legacy_npu", "torch_npu"))
    (root / "test").mkdir()
    (root / "test" / "test_torch_npu_init.py").write_text(SUBPROCESS_TEST)
    return root


def _run(root: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", command, "--isolated", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )


def _strings(done: subprocess.CompletedProcess) -> list[tuple[str, int]]:
    return [(f["path"], f["line"]) for f in json.loads(done.stdout) if f["code"] == "FSU304"]


def test_strings_naming_a_function_the_fix_removed_are_still_reported_afterwards(tmp_path: Path) -> None:
    root = _torch_npu(tmp_path)
    assert "def _patched_all_gather_copy_in(" in PATCH.read_text()
    before = _strings(_run(root, "check"))
    assert before == [("test/test_torch_npu_init.py", 6)]
    fixed = _run(root, "fix")
    assert "_patched_all_gather_copy_in" not in (root / "torch_npu/distributed/fsdp/_add_fsdp_patch.py").read_text()
    assert _strings(fixed) == before
    again = _run(root, "check")
    assert _strings(again) == before and again.returncode == 1
