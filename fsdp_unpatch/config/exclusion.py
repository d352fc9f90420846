"""Which paths a run leaves out: `exclude` / `extend-exclude` patterns and `.gitignore` files.

Patterns are gitwildmatch patterns (the `.gitignore` syntax, via pathspec), relative to the project root
(the folder of the configuration file, else the current folder): `build/`, `legacy/*.py`, `**/gen_*.py`;
a pattern without a slash matches a name anywhere. `.gitignore` files count from the top of the git
work tree (the folder holding `.git`, else the project root) down to the file, the deeper file winning,
as git does.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from fsdp_unpatch.config.discovery import SKIPPED_DIRS
from fsdp_unpatch.files.regular import read_regular

if TYPE_CHECKING:
    import pathspec


def compile_patterns(lines: Sequence[str]) -> pathspec.PathSpec:
    """gitwildmatch patterns (pathspec >= 1.0 renames the factory `gitignore`; both mean the same here)."""
    import pathspec  # here, not at the top: it costs more to import than a whole run with no pattern

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pathspec.PathSpec.from_lines("gitwildmatch", lines)


_compile = compile_patterns


def _verdict(spec: pathspec.PathSpec, relative: str) -> Optional[bool]:
    """True: ignored; False: re-included by a `!pattern`; None: no pattern matches (last match wins)."""
    verdict = None
    for pattern in spec.patterns:
        if pattern.include is not None and pattern.match_file(relative) is not None:
            verdict = bool(pattern.include)
    return verdict


class Exclusion:
    """Decides, per file or folder, whether a run skips it."""

    def __init__(
        self,
        root: Path,
        exclude: Optional[Sequence[str]] = None,
        extend_exclude: Sequence[str] = (),
        respect_gitignore: bool = True,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        # `exclude` replaces the default folder names; `extend-exclude` adds to whichever applies.
        self.default_names = SKIPPED_DIRS if exclude is None else frozenset()
        patterns = list(exclude or ()) + list(extend_exclude)
        self.spec: Optional[pathspec.PathSpec] = _compile(patterns) if patterns else None
        self.respect_gitignore = respect_gitignore
        self._gitignores: dict[Path, Optional[pathspec.PathSpec]] = {}
        self._tops: dict[Path, Path] = {}
        self._chains: dict[Path, list[tuple[Path, pathspec.PathSpec]]] = {}

    def excluded(self, path: str, is_dir: bool) -> bool:
        absolute = Path(os.path.abspath(path))
        if is_dir and absolute.name in self.default_names:
            return True
        relative = self._relative(absolute, self.root)
        if relative is not None and self.spec is not None and self.spec.patterns:
            if self.spec.match_file(relative + ("/" if is_dir else "")):
                return True
        return self.respect_gitignore and self._gitignored(absolute, is_dir)

    def applies_in(self, folder: str) -> bool:
        """Whether anything but the default folder names can exclude an entry of `folder`: an exclude
        pattern, or a `.gitignore` on the way up to the top of the work tree. When not, the walk spends
        nothing on the folder's entries (most folders of most trees)."""
        if self.spec is not None and self.spec.patterns:
            return True
        return self.respect_gitignore and bool(self._chain(Path(os.path.abspath(folder))))

    def excluded_anywhere(self, path: str) -> bool:
        """For an explicitly named file (`--force-exclude`): it, or a folder above it within the project."""
        absolute = Path(os.path.abspath(path))
        if self.excluded(str(absolute), is_dir=False):
            return True
        base = self.root if self._relative(absolute, self.root) is not None else absolute.parent
        folder = absolute.parent
        while folder != base and self._relative(folder, base) is not None:
            if folder.name.startswith(".") or (folder / "pyvenv.cfg").is_file() or self.excluded(str(folder), True):
                return True
            folder = folder.parent
        return False

    @staticmethod
    def _relative(path: Path, base: Path) -> Optional[str]:
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            return None

    def _top(self, folder: Path) -> Path:
        """The top of the git work tree holding `folder`, else the project root."""
        if folder not in self._tops:
            if (folder / ".git").exists():
                self._tops[folder] = folder
            elif folder.parent == folder:
                self._tops[folder] = self.root
            else:  # the parent's answer, computed once for every folder below it
                self._tops[folder] = self._top(folder.parent)
        return self._tops[folder]

    def _gitignore(self, folder: Path) -> Optional[pathspec.PathSpec]:
        if folder not in self._gitignores:
            path = folder / ".gitignore"
            try:
                lines = read_regular(path).decode("utf-8", "replace").splitlines()  # a FIFO would hang the walk
            except OSError:
                lines = None
            self._gitignores[folder] = _compile(lines) if lines else None
        return self._gitignores[folder]

    def _chain(self, folder: Path) -> list[tuple[Path, pathspec.PathSpec]]:
        """The `.gitignore` specs that apply in `folder`, deepest first (computed once per folder)."""
        if folder not in self._chains:
            top = self._top(folder)
            chain = []
            if self._relative(folder, top) is not None:
                for above in (folder, *folder.parents):
                    spec = self._gitignore(above)
                    if spec is not None:
                        chain.append((above, spec))
                    if above == top:
                        break
            self._chains[folder] = chain
        return self._chains[folder]

    def _gitignored(self, path: Path, is_dir: bool) -> bool:
        for folder, spec in self._chain(path.parent):  # deepest first: the first definite verdict wins
            verdict = _verdict(spec, path.relative_to(folder).as_posix() + ("/" if is_dir else ""))
            if verdict is not None:
                return verdict
        return False
