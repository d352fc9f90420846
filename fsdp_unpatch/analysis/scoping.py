"""Which assignments to FSDP2 names are overrides, and how far a patch reaches.

- A name no supported torch release defines on that module or class (a sentinel flag, a debug hook,
  the original saved under a new name) is a new attribute, not an override (`symbols.py`). A name only
  some releases define is an override in those only, and the finding says so.
- A patch/unpatch pair: the original is saved (`orig = X.f`, `X._orig_f = X.f`, `self._orig = X.f`,
  `orig = getattr(X, "f")`, or reached later through a `functools.wraps` wrapper's `__wrapped__`), the
  patch installed, and the saved original put back (`X.f = orig` in a `finally:`, an `__exit__`, a fixture's
  teardown, an undo function). The restore overrides nothing; the install is reported once, as scoped.
- `importlib.reload(M)` after a patch, in the same scope, re-runs M's `from .source import name`: M's
  by-name copy then holds the patch too (FSU401 does not apply to it).
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import SymbolTables
from fsdp_unpatch.semantic.names import dotted_name, target_id
from fsdp_unpatch.semantic.scope_verdict import NAMING_DUNDERS, Verdict

TargetOf = Callable[[RawInstall], Optional[str]]  # an install site's canonical target id
LineOf = Callable[[cst.CSTNode], int]
RELOADERS = ("importlib.reload", "imp.reload")
__all__ = ["NAMING_DUNDERS", "RELOADERS", "Verdict", "reloaded_after", "verdicts"]


def _literal(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _Originals:
    """Where a file keeps the originals of FSDP2 names (each as the target id it holds).

    A read of `X.f` holds the original only if no install over `X.f` comes before it in the file:
    `_fsdp_param_group.foreach_reduce = _fsdp_collectives.foreach_reduce` after patching the latter
    copies the patch, it restores nothing.
    """

    def __init__(self, facts: Facts, catalog: Catalog, target_of: TargetOf, line_of: LineOf) -> None:
        self.facts, self.catalog, self.target_of, self.line_of = facts, catalog, target_of, line_of
        # id(function) -> the function it is defined in (None: at module or class level)
        self.parents = {id(d): parent for found in facts.functions.values() for d, parent in found}
        # `self._orig = X.f`, `X._orig_f = X.f`: the qualified attribute -> the target it holds
        self.stored: dict[str, str] = {}
        for install in facts.installs:
            held = self._direct(install.value, install.function)
            owner = facts.table.qualify(install.owner)
            if held is not None and owner is not None and target_of(install) != held:
                self.stored[f"{owner}.{install.attribute}"] = held
        # `@functools.wraps(orig) def wrapper` -> the wrapper's `__wrapped__` is the original
        self.wrapped: dict[str, str] = {}
        for decorator, function in facts.decorated:
            if (facts.table.qualify(decorator.func) or "").endswith("functools.wraps") and decorator.args:
                held = self.held(decorator.args[0].value, self.parents.get(id(function)))  # read where defined
                if held is not None:
                    self.wrapped[function.name.value] = held

    def _target(self, qualified: Optional[str]) -> Optional[str]:
        return target_id(qualified, self.catalog) if qualified else None

    def _binding(self, name: str, scope: Optional[cst.FunctionDef]) -> Optional[cst.BaseExpression]:
        """What a name read in `scope` (a function, None at module level) was bound to (`orig = X.f`,
        `orig = getattr(X, "f")`); None when it is a function of the file, a parameter, or bound to more than
        one thing: then it is no saved original. As in Python, the name is the innermost enclosing function's
        that binds it (a parameter included), else the module's: another function's `orig` is another name."""
        values = []
        while True:
            if scope is not None and name in _parameters(scope):
                return None
            values = [v for local, v, where in self.facts.aliases if local == name and where is scope]
            if values or scope is None:
                break
            scope = self.parents.get(id(scope))
        if name in self.facts.call_bindings:
            values.append(self.facts.call_bindings[name])
        if name in self.facts.functions or len({self.facts.table.qualify(v) for v in values}) != 1:
            return None
        return values[0]

    def _read(self, value: cst.BaseExpression, scope: Optional[cst.FunctionDef]) -> Optional[tuple[str, cst.CSTNode]]:
        """(target id, the node that reads it) for `X.f`, `getattr(X, "f")`, or a name bound to one where
        `value` is read (`scope`)."""
        if isinstance(value, cst.Name) and value.value in self.facts.table.sources:
            imports = self.facts.table.sources[value.value]  # `from ..._fsdp_collectives import f as orig`
            target = self._target(self.facts.table.qualify(value))
            if value.value in self.facts.functions or len(imports) != 1 or target is None:
                return None
            return target, imports[0]
        if isinstance(value, cst.Name):
            bound = self._binding(value.value, scope)
            if bound is None:
                return None
            value = bound
        if isinstance(value, cst.Call) and dotted_name(value.func) == "getattr" and len(value.args) >= 2:
            name = _literal(value.args[1].value)
            owner = self.facts.table.qualify(value.args[0].value)
            target = self._target(f"{owner}.{name}") if name and owner else None
        else:
            target = self._target(self.facts.table.qualify(value))
        return (target, value) if target is not None else None

    def _direct(
        self, value: cst.BaseExpression, scope: Optional[cst.FunctionDef], ordered: bool = True
    ) -> Optional[str]:
        read = self._read(value, scope)
        if read is None:
            return None
        target, node = read
        if ordered and self._patched_before(target, node):
            return None
        return target

    def _patched_before(self, target: str, read: cst.CSTNode) -> bool:
        line = self.line_of(read)
        return any(
            self.target_of(i) == target
            and self.line_of(i.report) < line
            and self._direct(i.value, i.function, ordered=False) != target  # an earlier restore patches nothing
            for i in self.facts.installs
        )

    def held(self, value: cst.BaseExpression, scope: Optional[cst.FunctionDef]) -> Optional[str]:
        """The target id whose original `value`, read in `scope` (a function; None at module level), holds,
        if it holds one."""
        if isinstance(value, cst.Attribute) and value.attr.value == "__wrapped__":
            inner = value.value
            if isinstance(inner, cst.Name) and inner.value in self.wrapped:
                return self.wrapped[inner.value]
            return self._direct(inner, scope, ordered=False)  # `X.f.__wrapped__`: X.f wraps the original
        qualified = self.facts.table.qualify(value)
        if qualified in self.stored:
            return self.stored[qualified]
        return self._direct(value, scope)


def _parameters(function: cst.FunctionDef) -> set[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return {p.name.value for p in every}


def _same(catalog: Catalog, target: str, held: str) -> bool:
    """By-name twins hold the same original object."""
    return held == target or held == catalog.twin_of(target)


def verdicts(
    facts: Facts, catalog: Catalog, symbols: SymbolTables, target_of: TargetOf, line_of: LineOf
) -> dict[int, Verdict]:
    """id(install) -> its verdict, for the install sites whose target is an FSDP2 name."""
    originals = _Originals(facts, catalog, target_of, line_of)
    out: dict[int, Verdict] = {}
    restores: list[tuple[RawInstall, str]] = []
    for install in facts.installs:
        target = target_of(install)
        if target is None or install.attribute == "__code__":
            continue
        if install.attribute in NAMING_DUNDERS and isinstance(
            install.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            out[id(install)] = Verdict(
                False
            )  # renames for display (`FSDPModule.__module__ = "..."`): runs no other code
            continue
        held = originals.held(install.value, install.function)
        if held is not None and _same(catalog, target, held):
            out[id(install)] = Verdict(False)
            restores.append((install, target))
            continue
        releases = symbols.releases(target)
        if releases is not None and not releases:
            out[id(install)] = Verdict(False)  # a new attribute: nothing upstream is overridden
        elif releases is not None and len(releases) < len(symbols.minors):
            out[id(install)] = Verdict(True, symbols.describe(releases))
        else:
            out[id(install)] = Verdict(True)
    _pair(facts, restores, out, target_of, line_of)
    return out


def _pair(
    facts: Facts, restores: list[tuple[RawInstall, str]], out: dict[int, Verdict], target_of: TargetOf, line_of: LineOf
) -> None:
    """Note each restore at its install: the last one of the same target before it, else the first after."""
    for restore, target in restores:
        line = line_of(restore.report)
        installs = [
            (line_of(i.report), i)
            for i in facts.installs
            if out.get(id(i), Verdict(False)).override and target_of(i) == target
        ]
        before = [pair for pair in installs if pair[0] < line]
        chosen = max(before, key=lambda p: p[0]) if before else min(installs, key=lambda p: p[0], default=None)
        if chosen is not None:
            out[id(chosen[1])].restored_at.append(line)


def reloaded_after(facts: Facts, catalog: Catalog, install: RawInstall, missing: str, line_of: LineOf) -> bool:
    """Whether `missing` (a by-name copy, "module.name") is refreshed by `importlib.reload(module)` after
    `install`, in the same function (or both at module level)."""
    module = missing.split(".")[0]
    if not any(e.module == module and f"{e.module}.{e.name}" == missing for e in catalog.by_name_imports):
        return False  # reloading the source module would re-define the original, not copy the patch
    for call, function in facts.reloads:
        if function is not install.function or not call.args:
            continue
        if facts.table.qualify(call.func) not in RELOADERS:
            continue
        reloaded = facts.table.qualify(call.args[0].value)
        if reloaded and target_id(reloaded, catalog) == module and line_of(call) > line_of(install.report):
            return True
    return False
