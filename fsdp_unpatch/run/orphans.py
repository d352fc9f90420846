"""Patch parts that an earlier, safe-only fix left behind, recognised in a later run (a step of the run's
linking, `run/linking.py`).

`fix` without `--unsafe-fixes` deletes the install sites, but keeps a replacement function while tests
still name it, and an installer whose calls wait for them. The next run no longer sees an install site
that ties them to FSDP2: each rule recognises its own part by the catalog's `[patch_modules]`, handed to
it for each analysed file as a `remains` subject (FSU002: a replacement, FSU003: an installer), so that
`fix --unsafe-fixes` finishes the migration a safe run began. It yields decisions
(`analysis/decisions.py`), which the engine applies as they come.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from fsdp_unpatch.analysis.decisions import Add, Decision, Drop
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.patterns import descendants, top_level_function
from fsdp_unpatch.analysis.subjects import Remains
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.rules.registry import role_of


def plan_orphans(analysis: FileAnalysis, catalog: Catalog, options: Options) -> Iterator[Decision]:
    installed = {id(p.node) for p in analysis.planned}
    remains = _holds_patch_remains(analysis, catalog)
    for module in catalog.patch_modules.values():
        for decision in dispatch("remains", Remains(module, installed, remains), analysis, catalog, options=options):
            yield decision
            assert isinstance(decision, Add)
            if role_of(decision.planned.code) == "replacement":
                yield from _leave_body_alone(analysis, decision.planned.edits[0].node)


def _holds_patch_remains(analysis: FileAnalysis, catalog: Catalog) -> bool:
    """Whether the file may be where a patch lived: it has a patch module's name (its last part: a copy of
    torch-npu in a folder of another name, a project's own copy that an earlier fix recorded), or it still
    defines a replacement or an enhance installer of one. A module-level function of an installer's name in
    any other file is no evidence that a fix emptied it."""
    tail = (analysis.module_name or "").rsplit(".", 1)[-1]
    return any(
        tail == name.rsplit(".", 1)[-1]
        or any(
            top_level_function(analysis.module, n) is not None
            for n in [*module.replacements, *module.enhance_installers]
        )
        for name, module in catalog.patch_modules.items()
    )


def _leave_body_alone(analysis: FileAnalysis, function: cst.CSTNode) -> Iterator[Decision]:
    """The function goes as a whole, or stays as it is (as in the run that removed its install sites):
    no same-device collapse (FSU005) inside it."""
    inside = {id(node) for node in descendants(function)}
    for planned in [p for p in analysis.planned if role_of(p.code) == "same-device-copy" and id(p.node) in inside]:
        yield Drop(analysis, planned)
