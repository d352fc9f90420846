"""Same-device copies: `if same device: _foreach_copy_(..., non_blocking=True) else: ...` collapsed to the
native call (the rule that checks a copy, FSU005, through the dispatcher), except in code that stays (it
is left byte-identical)."""

from __future__ import annotations

import ast
import textwrap
from typing import Callable, Optional

import libcst as cst

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.patterns import descendants, same_device_copy
from fsdp_unpatch.analysis.plan_state import PlanState
from fsdp_unpatch.analysis.registrations import kernel_registrations
from fsdp_unpatch.analysis.subjects import Copy
from fsdp_unpatch.fingerprint.normalise import local_names
from fsdp_unpatch.semantic.names import dotted_name


def kept_code(state: PlanState) -> set[int]:
    """ids of every node inside code that stays: replacements of install sites that stay, what kept
    installers and kernel registrations name, and the module's functions those call, transitively."""
    top_level = {name: node for name, defs in state.facts.functions.items() for node, parent in defs if parent is None}
    roots: list[cst.CSTNode] = []
    for install in state.facts.installs:
        if id(install.removable) in state.removed_sites:
            continue
        roots.append(install.value)
        if install.function is not None and not any(
            i.node is install.function and i.removable for i in state.result.installers
        ):
            roots.append(install.function)
    for registration in kernel_registrations(state.facts):
        roots.append(registration.call)
        roots.extend(f for call, f in state.facts.decorated if call is registration.call)
        if registration.function is not None:
            roots.append(registration.function)
    kept: set[int] = set()
    seen_functions: set[int] = set()
    while roots:
        root = roots.pop()
        for node in descendants(root):
            kept.add(id(node))
            if isinstance(node, cst.Name) and node.value in top_level:
                function = top_level[node.value]
                if id(function) not in seen_functions:
                    seen_functions.add(id(function))
                    roots.append(function)
    return kept


def plan_copies(state: PlanState) -> None:
    """Every same-device copy outside the functions the fix deletes and the code that stays."""
    removed_functions = {id(p.edits[0].node) for p in state.result.replacements.values()}
    kept: Optional[set[int]] = None
    # An `elif` is the `else` of the `if` above it: collapsing it alone would run the copy on that branch too.
    elifs = {id(node.orelse) for node, _ in state.facts.ifs if isinstance(node.orelse, cst.If)}
    for node, function in state.facts.ifs:
        if function is not None and (id(function) in removed_functions or id(function) in state.kept_replacements):
            continue  # goes with its function, or stays with it as it is
        if id(node) in elifs:
            continue
        match = same_device_copy(node, state.result.code, qualify_in(state, function))
        if match is None:
            continue
        kept = kept_code(state) if kept is None else kept
        if id(node) in kept:
            continue  # code that stays is left byte-identical
        native = match.native_call.with_changes(leading_lines=node.leading_lines)
        copy = Copy(node, native, match.native_call.body[0])
        state.result.planned.extend(dispatch("copy", copy, state.result, state.catalog, options=state.options))


def qualify_in(state: PlanState, function: Optional[cst.FunctionDef]) -> Callable[[cst.BaseExpression], Optional[str]]:
    """Qualified names as seen inside `function`: a name it (or a function around it) binds is a local,
    not what the module imports under that name (`torch` as a parameter is not the torch module). The
    names are read on the first call: most `if`s hold no copy to qualify."""
    read: list[Optional[set[str]]] = []

    def qualify(expression: cst.BaseExpression) -> Optional[str]:
        if not read:
            read.append(bound_around(state, function))
        local = read[0]
        if local is None:  # cannot tell: every name it spells may be a local
            return None
        name = dotted_name(expression)
        if name is not None and name.partition(".")[0] in local:
            return None
        return state.facts.table.qualify(expression)

    return qualify


def bound_around(state: PlanState, function: Optional[cst.FunctionDef]) -> Optional[set[str]]:
    """The names `function` and the functions around it bind; None when one of them does not parse alone."""
    parents = {id(f): parent for found in state.facts.functions.values() for f, parent in found}
    local: set[str] = set()
    while function is not None:
        try:
            parsed = ast.parse(textwrap.dedent(state.result.code(function.with_changes(leading_lines=()))))
        except SyntaxError:
            return None
        local |= local_names(parsed.body[0])  # type: ignore[arg-type]
        function = parents.get(id(function))
    return local
