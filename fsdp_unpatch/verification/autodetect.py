"""`fsdp-unpatch verify PATH`: work out the two runs from the tree itself.

The analysis already knows the installers: FSU003 marks an installer the migration removes (the
collectives patch), FSU201 an install site of the enhance patch, inside the function that installs it.
The patched run calls the enhance installers, then the removed ones (the order torch-npu applies them);
the migrated run calls the enhance installers of a copy of the tree that `fix` migrated. Each
installer is `MODULE:FUNCTION` for a top-level function; the folder its packages start from goes first on
the workers' `sys.path`.
"""

from __future__ import annotations

import ast
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from fsdp_unpatch.i18n import Phrase
from fsdp_unpatch.verification.spec import InstallerSpec

# never copied into the migrated tree
COPY_IGNORED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    ".fsdp_unpatch_cache",
    ".venv",
    "venv",
    "*.egg-info",
    ".mypy_cache",
    ".pytest_cache",
    ".tox",
    ".nox",
)


class DetectError(Exception):
    """The tree does not say what to run; the message (a `Phrase`) says what to give explicitly."""


@dataclass(frozen=True)
class Installer:
    spec: InstallerSpec
    root: Path  # the folder the module's packages start from


@dataclass(frozen=True)
class Detected:
    enhance: tuple[Installer, ...]
    removed: tuple[Installer, ...]

    @property
    def roots(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(i.root for i in self.enhance + self.removed))


def _enclosing_function(path: Path, line: int) -> str:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (
            node.end_lineno or node.lineno
        ):
            return node.name
    raise DetectError(
        Phrase(
            "{path}:{line}: the install site is not inside a top-level function; name the installers with "
            "--patch/--migrated and their folders with --patch-path/--migrated-path",
            path=str(path),
            line=line,
        )
    )


def _installer(path: Path, line: int) -> Installer:
    from fsdp_unpatch.project.identity import module_name as module_name_of

    module, _ = module_name_of(path, real=True)
    root = path.resolve().parents[len(module.split(".")) - 1]
    return Installer(InstallerSpec(module, _enclosing_function(path, line)), root)


def detect(path: str) -> Detected:
    """The installers under `path`, from the same analysis as `check` (its configuration applies)."""
    from fsdp_unpatch.api import check_paths
    from fsdp_unpatch.rules.registry import with_role

    ENHANCE_PATCH, PATCH_INSTALLER = with_role("enhance-installer"), with_role("installer")

    found = check_paths([path], select=[PATCH_INSTALLER.code, ENHANCE_PATCH.code])
    enhance = [_installer(Path(f.path), f.span.line) for f in found if f.code == ENHANCE_PATCH.code]
    removed = [_installer(Path(f.path), f.span.line) for f in found if f.code == PATCH_INSTALLER.code]
    if not removed:
        raise DetectError(
            Phrase(
                "no installer that the migration removes ({code}) under {path}: name the old patch with "
                "--patch MODULE:FUNCTION and --patch-path DIR",
                code=PATCH_INSTALLER.code,
                path=path,
            )
        )
    return Detected(tuple(dict.fromkeys(enhance)), tuple(dict.fromkeys(removed)))


def migrated_copy(path: str, detected: Detected, dest: Path) -> dict[Path, Path]:
    """Copy the tree (and the package roots, if they lie above it) into `dest`, run `fix` on the copy of
    `path`, and return where each package root landed."""
    from fsdp_unpatch.api import fix_paths

    source = Path(path).resolve()
    base = Path(os.path.commonpath([str(source), *(str(r) for r in detected.roots)]))
    copy = dest / (base.name or "root")
    shutil.copytree(base, copy, ignore=COPY_IGNORED, symlinks=True)
    result = fix_paths([str(copy / source.relative_to(base))])
    errors = [f for f in result.remaining if f.category == "error"]
    if errors:
        from fsdp_unpatch.reporting.localize import FindingMessage

        first = errors[0]
        where = f"{first.path}:{first.span.line}"
        message = FindingMessage(first.message)
        raise DetectError(
            Phrase(
                "fix could not migrate the copy: {where}: {code} {message}",
                where=where,
                code=first.code,
                message=message,
            )
        )
    return {root: copy / root.relative_to(base) for root in detected.roots}
