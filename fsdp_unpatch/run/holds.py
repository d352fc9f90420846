"""The engine's own holds on a run's fixes, as decisions (`analysis/decisions.py`): an installer stays while a
call of it stays, and a replacement or installer that a project file outside the run names stays."""

from __future__ import annotations

import os
from typing import Iterator, Sequence

from fsdp_unpatch.analysis.decisions import Decision, Hold, is_held
from fsdp_unpatch.config.discovery import outside_files
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.rules.registry import role_of
from fsdp_unpatch.run.unit import Unit


def keep_called_installers(units: Sequence[Unit], selected: set[int]) -> Iterator[Decision]:
    """An installer stays while a call of it stays (suppressed, not selected, or in a skipped file)."""
    skipped = [u.source.data for u in units if u.skipped and u.source is not None]
    for unit in units:
        for planned in unit.analysis.planned if unit.analysis is not None else ():
            installer_name = planned.deletes if role_of(planned.code) == "installer" else None
            if installer_name is not None and any(installer_name.encode() in data for data in skipped):
                yield Hold(planned)
            if role_of(planned.code) == "installer-call" and id(planned) not in selected:
                for installer in list(planned.requires):
                    yield Hold(installer)


def keep_named_outside(units: Sequence[Unit], options: RunOptions) -> Iterator[Decision]:
    """A replacement or installer that a project file outside the run names stays: deleting it would
    break that file. A file names it when it holds the name and its module's top-level package
    (`from pkg.patch import name`), or lives in that package (a relative import)."""
    deletions = [
        (planned, planned.deletes, unit.analysis.module_name.split(".")[0])
        for unit in units
        if unit.analysis is not None
        for planned in unit.analysis.planned
        if planned.deletes is not None  # a replacement's or an installer's fix
    ]
    if not deletions or options.project_root is None:
        return
    for path in outside_files(options.project_root, options.covered):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        folders = set(os.path.normpath(path).split(os.sep)[:-1])
        for planned, name, package in deletions:
            if is_held(planned) or name.encode() not in data:
                continue
            if package.encode() in data or package in folders:
                yield Hold(planned, f"; kept for now: {os.path.relpath(path)} (not in this run) names it")
