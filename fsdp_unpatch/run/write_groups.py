"""Which files' fixes are written all or nothing (`write_groups`), and why a file's fix must not be written
at all (`why_not_written`); the engine computes the fixes, `fixes/transaction.py` writes each group."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

from fsdp_unpatch.analysis.plan import Planned
from fsdp_unpatch.analysis.source import round_trips
from fsdp_unpatch.files.reading import SourceError
from fsdp_unpatch.project.identity import top_package
from fsdp_unpatch.run.groups import Groups
from fsdp_unpatch.run.unit import Unit


def write_groups(
    units: Sequence[Unit], applied_by_file: dict[int, list[Planned]], blocked: dict[int, str]
) -> tuple[list[list[int]], dict[int, str]]:
    """The groups of files whose fixes are written all or nothing, and why a file blocks its group.

    Two files are in one group when a fix in one requires a fix in the other (a replacement and
    its references, an installer and its calls), or when one cannot be parsed and names a definition
    the other's fix deletes, or cannot be read and lies in the definer's package (`may_import`): then
    the definition stays, since that file would break.
    """
    position = {id(unit): i for i, unit in enumerate(units)}
    owner = {id(p): position[id(u)] for u in units if u.analysis is not None for p in u.analysis.planned}
    groups = Groups()

    deleted: list[tuple[bytes, int]] = []
    for key, applied in applied_by_file.items():
        here = position[key]
        groups.add(here)
        seen: set[int] = set()
        stack = list(applied)
        while stack:
            planned = stack.pop()
            if id(planned) in seen:
                continue
            seen.add(id(planned))
            there = owner.get(id(planned))
            if there is not None and there != here:
                groups.join([there, here])
            stack.extend(planned.requires)
        deleted += [(p.deletes.encode(), here) for p in applied if p.deletes is not None]
    blockers = {position[key]: why for key, why in blocked.items()}
    for index, unit in enumerate(units):
        if unit.error is None:
            continue
        data = unit.source.data if unit.source is not None else None  # None: not even readable
        for name, definer in deleted:
            if name in data if data is not None else may_import(unit, units[definer]):
                groups.join([definer, index])
                blockers[index] = unit.error.message
    return sorted(groups.members().values()), blockers


def why_not_written(unit: Unit) -> Optional[SourceError]:
    """Why a fix of this file must not be written, whatever it is."""
    assert unit.analysis is not None and unit.source is not None
    if getattr(unit.candidate, "leaves_roots", False):
        target = os.path.realpath(unit.candidate.path)
        return SourceError(
            "write",
            f"symbolic link to a file outside the folders being fixed ({target}); "
            "not written (name the file itself to fix it)",
        )
    parsed = unit.source.data if unit.excerpt is None else unit.excerpt.text
    if not round_trips(unit.analysis.module, parsed):
        return SourceError(
            "write",
            "libcst does not give back this file byte for byte (a form feed at the "
            "start of a line, lines that end in a lone carriage return, or more "
            "implicitly joined string literals than libcst's parser takes?); not written",
        )
    return None


def may_import(unreadable: Unit, definer: Unit) -> bool:
    """Whether a file that cannot be read might import what `definer`'s fix deletes: it is a regular file
    (a broken link or a pipe is no module) inside the definer's own top-level package, where its callers live."""
    path = unreadable.candidate.path
    if not os.path.isfile(path):
        return False
    package = top_package(definer.candidate.path)
    return package is not None and Path(package) in Path(os.path.realpath(path)).parents
