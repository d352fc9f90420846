"""Installers: a function whose install sites all go is deleted when nothing else is left in it (decided
here; the rule that checks an installer, FSU003, says it through the dispatcher), and so are its calls, in
this file or in another one of the run (FSU004)."""

from __future__ import annotations

import libcst as cst

from fsdp_unpatch.analysis.blocks import body_statements
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.file_analysis import Installer
from fsdp_unpatch.analysis.patterns import is_docstring
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.subjects import InstallerToGo


def plan_installers(state: PlanState) -> None:
    """Every function that holds a site the fix deletes; deleted itself when nothing else is left in it and it
    is a top-level function (with its `__all__` entries)."""
    seen: set[int] = set()
    for install in state.facts.installs:
        function = install.function
        if function is None or id(function) in seen or id(install.removable) not in state.removed_sites:
            continue
        seen.add(id(function))
        qualified = f"{state.result.module_name}.{function.name.value}"
        # An installer `__all__` exports goes with its entries (else `import *` fails); one named in an `__all__`
        # the module does not build at its top level stays.
        name = function.name.value
        exported = name in state.facts.dunder_all and name not in state.facts.dunder_all_entries
        removable = is_top_level(state, function) and left_empty(state, function) and not exported
        installer = Installer(function, qualified, removable)
        if removable:
            sites = [
                p
                for i in state.facts.installs
                if i.function is function
                for p in [state.removed_sites.get(id(i.removable))]
                if p is not None
            ]
            subject = InstallerToGo(function, sites)
            for planned in dispatch("installer", subject, state.result, state.catalog, options=state.options):
                state.add(planned)
                if planned.edits and planned.edits[0].node is function:
                    installer.finding = planned  # the finding whose fix deletes it (FSU003's), not another's
        state.result.installers.append(installer)


def is_top_level(state: PlanState, function: cst.FunctionDef) -> bool:
    if id(function) in state.facts.methods:
        return False  # a method is called through objects the analysis cannot follow
    return any(
        node is function and parent is None for node, parent in state.facts.functions.get(function.name.value, [])
    )


def left_empty(state: PlanState, function: cst.FunctionDef) -> bool:
    removed = {key for key in state.removed_sites}
    globals_declared = {
        name.name.value
        for statement in _walk_statements(function.body)
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Global)
        for name in small.names
    }
    return all(_trivial(s, removed, globals_declared) for s in body_statements(function.body))


def _walk_statements(block: cst.BaseSuite):
    for statement in body_statements(block):
        yield statement
        for attribute in ("body", "orelse", "finalbody"):
            child = getattr(statement, attribute, None)
            if isinstance(child, cst.BaseSuite):
                yield from _walk_statements(child)
            elif isinstance(child, (cst.Else, cst.Finally, cst.If)):
                yield from _walk_statements(child.body)


def _trivial(statement: cst.BaseStatement, removed: set[int], flags: set[str]) -> bool:
    """Nothing an installer does once its install sites are gone: docstrings, `pass`, flags, `return`."""
    if id(statement) in removed or is_docstring(statement):
        return True
    if isinstance(statement, cst.SimpleStatementLine):
        return all(_trivial_small(s, removed, flags) for s in statement.body)
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        rest = (
            True
            if orelse is None
            else (
                _trivial(orelse, removed, flags)
                if isinstance(orelse, cst.If)
                else all(_trivial(s, removed, flags) for s in body_statements(orelse.body))
            )
        )
        return rest and all(_trivial(s, removed, flags) for s in body_statements(statement.body))
    return False


def _trivial_small(small: cst.BaseSmallStatement, removed: set[int], flags: set[str]) -> bool:
    if id(small) in removed or isinstance(small, (cst.Pass, cst.Global, cst.Nonlocal)):
        return True
    if isinstance(small, cst.Return):
        return small.value is None
    if isinstance(small, cst.Assign):
        return all(isinstance(t.target, cst.Name) and t.target.value in flags for t in small.targets)
    return False
