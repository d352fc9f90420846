"""The scandir walk finds what an `os.walk` over the same tree finds, and evaluates exclude patterns and
`.gitignore` files only in folders where one applies."""

from __future__ import annotations

import os
from pathlib import Path

from fsdp_unpatch.config import discovery
from fsdp_unpatch.config.discovery import SKIPPED_DIRS, discover
from fsdp_unpatch.config.exclusion import Exclusion


def _reference_walk(root: str, exclusion: Exclusion) -> list[str]:
    """The walk as it was written with `os.walk` (before the scandir walk)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".")
            and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
            and not exclusion.excluded(os.path.join(folder, d), True)
        ]
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith((".py", ".pyi")) and not exclusion.excluded(path, False):
                found.append(path)
    return sorted(found)


def _tree(root: Path) -> None:
    files = [
        "a.py",
        "b.pyi",
        "notes.txt",
        "pkg/__init__.py",
        "pkg/mod.py",
        "pkg/deep/er/x.py",
        "pkg/.hidden/h.py",
        "pkg/__pycache__/c.py",
        "venv_like/pyvenv.cfg",
        "venv_like/lib/v.py",
        "ignored_here/keep.py",
        "ignored_here/drop.py",
        "ignored_here/gen/g.py",
        "ignored_here/sub/again.py",
        "ignored_here/sub/drop.py",
        "build/out.py",
        "x.py/inside.py",  # a folder named like a module
    ]
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    (root / "ignored_here" / ".gitignore").write_text("drop.py\ngen/\n")
    (root / "ignored_here" / "sub" / ".gitignore").write_text("!drop.py\n")
    os.symlink(root / "pkg", root / "link_to_folder")  # not followed
    os.symlink(root / "a.py", root / "link_to_file.py")  # taken
    os.symlink(root / "missing.py", root / "broken.py")  # taken: reading it says what is wrong


def test_same_files_as_an_os_walk(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / ".git").mkdir()
    exclusion = Exclusion(tmp_path)
    walked = sorted(path for path, *_ in discovery._walk(str(tmp_path), exclusion))
    assert walked == _reference_walk(str(tmp_path), exclusion)
    names = {os.path.relpath(p, tmp_path) for p in walked}
    assert {"ignored_here/keep.py", "ignored_here/sub/drop.py", "link_to_file.py", "broken.py"} <= names
    assert not names & {"ignored_here/drop.py", "ignored_here/gen/g.py", "build/out.py", "venv_like/lib/v.py"}
    assert "build" in SKIPPED_DIRS
    # and through `discover`, in the same order; the link to a file already taken is that file, taken once
    link = str(tmp_path / "link_to_file.py")
    assert [c.display for c in discover([str(tmp_path)], exclusion=exclusion)] == [p for p in walked if p != link]


def test_exclusion_is_evaluated_only_where_a_gitignore_applies(tmp_path: Path, monkeypatch) -> None:
    _tree(tmp_path)
    (tmp_path / ".git").mkdir()
    asked: list[str] = []
    real = Exclusion.excluded

    def excluded(self, path: str, is_dir: bool) -> bool:
        asked.append(os.path.relpath(path, tmp_path))
        return real(self, path, is_dir)

    monkeypatch.setattr(Exclusion, "excluded", excluded)
    list(discover([str(tmp_path)], exclusion=Exclusion(tmp_path)))
    assert asked and all(p.startswith("ignored_here") for p in asked), asked
    # an exclude pattern applies everywhere
    asked.clear()
    list(discover([str(tmp_path)], exclusion=Exclusion(tmp_path, extend_exclude=["pkg/mod.py"])))
    assert "a.py" in asked and "pkg/mod.py" in asked


def test_trailing_separator_and_dot(tmp_path: Path, monkeypatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    plain = [c.display for c in discover(["pkg"])]
    assert plain == [c.display for c in discover(["pkg/"])] == ["pkg/__init__.py", "pkg/deep/er/x.py", "pkg/mod.py"]
    assert "pkg/mod.py" in [c.display for c in discover(["."])]
