"""Which torch releases a run targets: `--target-torch` or the `target-torch` key, else the torch the project
declares (`declared_torch.py`), else the installed torch, else the newest release the catalog knows."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from fsdp_unpatch.catalog.learnt import version_key
from fsdp_unpatch.catalog.versions import TargetTorch, Version, installed_version, known_releases
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.quoting import printable

# The last minor release a declaration that allows no known release is asked about (of the newest known major):
# `torch==2.16` names a release the tool does not know yet, which the run then targets (judged as the newest
# known release).
LAST_MINOR = 99


def choose(
    requested: Optional[str],
    from_flag: bool,
    root: Optional[Path],
    oldest_known: str,
    newest_known: str,
    learnt: Sequence[str] = (),
    newest_release: Optional[str] = None,
) -> tuple[TargetTorch, list[str]]:
    """The target and the warnings to show once (a declaration that cannot be used, an installed torch
    outside the declared range). ValueError for a bad requested version.

    `learnt`: the versions of the releases of the user catalog (known too); `newest_release`: the newest
    release of the bundled data (`newest_known`'s newest patch release). A target newer than every known
    release says so (`TargetTorch.judged_as`)."""
    installed_text = installed_version()
    try:
        installed: Optional[Version] = Version.parse(installed_text or "")
    except ValueError:
        installed = None
    known = known_releases(oldest_known, newest_known)
    known += tuple(sorted({Version.parse(v) for v in learnt} - set(known)))
    newest = max([newest_release or newest_known, *learnt], key=version_key)
    if installed is not None and installed_text and installed > known[-1]:
        # the proofs read a torch installed here that is newer than every release known (`default_upstream`)
        known += (installed,)
        newest = installed_text.split("+")[0]

    def target(releases: tuple[Version, ...], origin: str) -> TargetTorch:
        return TargetTorch(releases, origin, newest if releases[0] > known[-1] else None)

    if requested:
        return target((Version.parse(requested),), "--target-torch" if from_flag else "configuration"), []
    warnings: list[str] = []
    if root is not None:
        from fsdp_unpatch.config.declared_torch import declared_torch

        asked = known + ((installed,) if installed is not None and installed not in known else ())
        declared, problems = declared_torch(root, asked)
        # file names and requirement texts end up on one line of the summary or of standard error
        warnings = [printable(problem) for problem in problems]
        newer: tuple[Version, ...] = ()
        if declared is not None and not declared.releases & set(known):  # then only: it costs a second reading
            later = tuple(Version(known[-1].major, minor) for minor in range(known[-1].minor + 1, LAST_MINOR + 1))
            again, _again_problems = declared_torch(root, later)  # said by the first reading
            newer = tuple(sorted(again.releases)) if again is not None else ()
            declared = again if newer else declared
        if declared is not None:
            releases = tuple(sorted(declared.releases & set(known)))
            if releases or newer:
                if installed is not None and installed not in declared.releases:
                    warnings.append(
                        _(
                            "the installed torch {installed} is outside the torch the project declares "
                            "({declared}); the target follows the declaration"
                        ).format(installed=installed_text, declared=printable(declared.origin))
                    )
                # only releases newer than every known one: the lowest, which is as unknown as the others
                return target(releases or newer[:1], printable(declared.origin)), warnings
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
        return target((installed,), "installed torch"), warnings
    return TargetTorch((known[-1],), "newest known"), warnings
