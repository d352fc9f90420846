"""`fix --diff` is what `fix` writes (issue 12, finding 6): `git apply` takes every diff, and the result is
byte for byte the tree `fix` leaves, whatever the files' encodings, line endings, and files the fix deletes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patch_texts import expand, removable

ROOT = Path(__file__).resolve().parent.parent
IGNORED = shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache")


def _encoded_tree(root: Path) -> Path:
    """One patch per file, in files that are not plain UTF-8 with LF endings."""
    root.mkdir()
    patch = removable().replace("\r\n", "\n")
    tail = "\n\nVALUE = 'end'\n"
    for name, cookie, comment in (
        ("latin1_module.py", "latin-1", "caf\xe9"),
        ("cp1252_module.py", "cp1252", "\u201cquoted\u201d \u20ac"),
        ("sjis_module.py", "shift_jis", "\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8"),
    ):
        text = f"# -*- coding: {cookie} -*-\n# {comment}\n" + patch + tail
        (root / name).write_bytes(text.encode(cookie))
    (root / "bom_module.py").write_bytes(b"\xef\xbb\xbf# caf\xc3\xa9\n" + (patch + tail).encode())
    (root / "crlf_module.py").write_bytes((patch + tail).replace("\n", "\r\n").encode())
    (root / "no_final_newline.py").write_bytes((patch + tail).rstrip("\n").encode())
    return root


def _trees(tmp_path: Path) -> dict[str, Path]:
    return {
        "example": ROOT / "examples" / "legacy_project",
        "downstream (deletes a test file)": ROOT / "tests" / "fixtures" / "downstream",
        "fix fixtures": ROOT / "tests" / "fixtures" / "fix",
        "encodings and line endings": _encoded_tree(tmp_path / "encoded"),
    }


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "tree, unsafe",
    [
        ("example", False),
        ("downstream (deletes a test file)", False),
        ("downstream (deletes a test file)", True),
        ("fix fixtures", False),
        ("encodings and line endings", False),
    ],
)
def test_git_apply_of_the_diff_gives_what_fix_writes(tmp_path: Path, tree: str, unsafe: bool) -> None:
    source = _trees(tmp_path)[tree]
    previewed, fixed = tmp_path / "previewed", tmp_path / "fixed"
    for copy in (previewed, fixed):
        shutil.copytree(source, copy, ignore=IGNORED)
        if tree.startswith("downstream"):
            for path in copy.rglob("*.py"):
                path.write_text(expand(path.read_text()))  # the vendored patch's upstream copies
    before = _files(previewed)
    flags = ["--isolated", "--no-cache"] + (["--unsafe-fixes"] if unsafe else [])
    diff = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--diff", *flags, "."], cwd=previewed, capture_output=True
    )
    assert diff.returncode in (0, 1), diff.stderr
    assert _files(previewed) == before  # --diff writes nothing
    done = subprocess.run([sys.executable, "-m", "fsdp_unpatch", "fix", *flags, "."], cwd=fixed, capture_output=True)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert (diff.returncode == 1) == (_files(fixed) != before)
    if diff.stdout:
        applied = subprocess.run(
            ["git", "apply", "--verbose", "-"], cwd=previewed, input=diff.stdout, capture_output=True
        )
        assert applied.returncode == 0, applied.stderr.decode(errors="replace")
    assert _files(previewed) == _files(fixed)
    if tree.startswith("downstream") and unsafe:
        assert b"deleted file mode" in diff.stdout  # the emptied test module is a deletion
