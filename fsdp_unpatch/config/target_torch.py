"""Which torch releases a run targets: `--target-torch` or the `target-torch` key, else the torch the project
declares (`declared_torch.py`), else the installed torch, else the newest release the catalog knows."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from fsdp_unpatch.catalog.versions import TargetTorch, Version, installed_version, known_releases
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.quoting import printable


def choose(
    requested: Optional[str],
    from_flag: bool,
    root: Optional[Path],
    oldest_known: str,
    newest_known: str,
) -> tuple[TargetTorch, list[str]]:
    """The target and the warnings to show once (a declaration that cannot be used, an installed torch
    outside the declared range). ValueError for a bad requested version."""
    if requested:
        return TargetTorch((Version.parse(requested),), "--target-torch" if from_flag else "configuration"), []
    known = known_releases(oldest_known, newest_known)
    installed_text = installed_version()
    try:
        installed: Optional[Version] = Version.parse(installed_text or "")
    except ValueError:
        installed = None
    warnings: list[str] = []
    if root is not None:
        from fsdp_unpatch.config.declared_torch import declared_torch

        asked = known + ((installed,) if installed is not None and installed not in known else ())
        declared, problems = declared_torch(root, asked)
        # file names and requirement texts end up on one line of the summary or of standard error
        warnings = [printable(problem) for problem in problems]
        if declared is not None:
            releases = tuple(sorted(declared.releases & set(known)))
            if releases:
                if installed is not None and installed not in declared.releases:
                    warnings.append(
                        _(
                            "the installed torch {installed} is outside the torch the project declares "
                            "({declared}); the target follows the declaration"
                        ).format(installed=installed_text, declared=printable(declared.origin))
                    )
                return TargetTorch(releases, printable(declared.origin)), warnings
            fallback = _("the installed torch") if installed is not None else _("the newest known release")
            warnings.append(
                _(
                    "{declared} allows no torch release the catalog knows ({lowest} to {highest}); the target is {fallback}"
                ).format(
                    declared=printable(f"{declared.where}: {declared.texts}"),
                    lowest=known[0],
                    highest=known[-1],
                    fallback=fallback,
                )
            )
    if installed is not None:
        return TargetTorch((installed,), "installed torch"), warnings
    return TargetTorch((Version.parse(newest_known),), "newest known"), warnings
