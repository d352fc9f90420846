"""Patch parts that an earlier, safe-only fix left behind, recognised in a later run.

`fix` without `--unsafe-fixes` deletes the install sites, but keeps a replacement function while tests
still name it (its deletion waits for the unsafe test fixes), and an installer whose calls wait for them.
The next run no longer sees an install site that ties the function to its FSDP2 target. So a module-level
function that carries the name of a known replacement (`[patch_modules]` in the catalog), that nothing in
its file uses and that is still upstream code plus the NPU tweak is planned for deletion as before
(FSU002); a known installer with nothing left in its body (FSU003) too. `fix --unsafe-fixes` then finishes
the migration a safe run began. A step of the run's linking: it yields decisions (`analysis/decisions.py`),
which the engine applies as they come.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from fsdp_unpatch import fingerprint
from fsdp_unpatch.analysis.decisions import Add, Decision, Drop
from fsdp_unpatch.analysis.patterns import body_statements, is_docstring
from fsdp_unpatch.analysis.plan import Edit, FileAnalysis, Installer, Options, Planned
from fsdp_unpatch.analysis.registrations import registered_by_decorator
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.rules.override_replacement import OVERRIDE_REPLACEMENT
from fsdp_unpatch.rules.patch_installer import PATCH_INSTALLER
from fsdp_unpatch.rules.same_device_foreach_copy import SAME_DEVICE_COPY


def _top_level_function(analysis: FileAnalysis, name: str) -> Optional[cst.FunctionDef]:
    for statement in analysis.module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    return None


def _unused(analysis: FileAnalysis, name: str) -> bool:
    return analysis.facts.name_uses[name] == 0 and name not in analysis.facts.dunder_all


def _holds_patch_remains(analysis: FileAnalysis, catalog: Catalog) -> bool:
    """Whether the file may be where a patch lived: it has a patch module's name (its last part: a copy of
    torch-npu in a folder of another name, a project's own copy that an earlier fix recorded), or it still
    defines a replacement or an enhance installer of one. A module-level function of an installer's name in
    any other file is no evidence that a fix emptied it."""
    tail = (analysis.module_name or "").rsplit(".", 1)[-1]
    return any(
        tail == name.rsplit(".", 1)[-1]
        or any(_top_level_function(analysis, n) is not None for n in [*module.replacements, *module.enhance_installers])
        for name, module in catalog.patch_modules.items()
    )


def _is_empty(function: cst.FunctionDef) -> bool:
    return all(
        is_docstring(s) or (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body))
        for s in body_statements(function.body)
    )


def _leave_body_alone(analysis: FileAnalysis, function: cst.FunctionDef) -> Iterator[Decision]:
    """The function goes as a whole, or stays as it is (as in the run that removed its install sites):
    no same-device collapse (FSU005) inside it."""
    inside: set[int] = set()

    class _Walk(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            inside.add(id(node))
            return True

    function.visit(_Walk())
    for planned in [p for p in analysis.planned if p.code == SAME_DEVICE_COPY.code and id(p.node) in inside]:
        yield Drop(analysis, planned)


def plan_orphans(analysis: FileAnalysis, catalog: Catalog, options: Options) -> Iterator[Decision]:
    installed = {id(p.node) for p in analysis.planned}
    remains = _holds_patch_remains(analysis, catalog)
    for module in catalog.patch_modules.values():
        for name, target_id in module.replacements.items():
            function = _top_level_function(analysis, name)
            target = catalog.targets.get(target_id)
            if function is None or name in analysis.replacements or not _unused(analysis, name) or target is None:
                continue
            if target.category != "remove" or id(function.name) in installed:
                continue
            if registered_by_decorator(function, analysis.facts):
                continue  # a kernel registration (FSU103) that stays
            if target.native_since and options.target_torch < Version.parse(target.native_since):
                continue
            evidence = fingerprint.compare_to_upstream(
                analysis.code(function),
                target.fingerprint or target.id,
                scope=fingerprint.Scope(analysis.module_name or "<module>", analysis.table.bindings),
                original_names=frozenset({target.id.rsplit(".", 1)[-1]}),
            )
            if not evidence.matched or evidence.calls_original:
                continue
            planned = Planned(
                OVERRIDE_REPLACEMENT.code,
                function.name,
                OVERRIDE_REPLACEMENT.message("orphan", name=name),
                target.id,
                edits=[Edit(function)],
            )
            yield Add(analysis, planned, replacement=name)
            yield from _leave_body_alone(analysis, function)
        if not remains:
            continue  # an empty function of an installer's name elsewhere is a stub of its own, no remains
        for name in module.installers:
            function = _top_level_function(analysis, name)
            qualified = f"{analysis.module_name}.{name}"
            if function is None or not _is_empty(function):
                continue
            if any(i.qualified == qualified for i in analysis.installers):
                continue
            finding = Planned(
                PATCH_INSTALLER.code,
                function.name,
                PATCH_INSTALLER.message("orphan", name=name),
                None,
                edits=[Edit(function)],
            )
            yield Add(analysis, finding, installer=Installer(function, qualified, True, finding))
