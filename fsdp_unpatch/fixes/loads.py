"""What an import loads besides the name it binds, so that the import clean-up never unloads what stays.

`from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam` binds `FSDPParam`, and it also loads
the module `..._fsdp_param`, which makes it an attribute of its package. Code that reaches it by attribute
access (`torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState`, after `import torch`) depends on that
side effect. When a fix deletes the copy that used `FSDPParam`, the import goes (`edits.unused_imports`) only
if nothing the fix keeps depends on the module it imports:

- the module an import is *of*: `import M` and `import M as x`: M; `from M import x`: `M.x` when `x` may be a
  submodule, else M (a module of `_fully_shard` has no submodules; the submodules of a package named in
  `PACKAGE_LOADS` are known);
- what the kept code needs: every dotted chain outside what the fix deletes, whose head name stands for a
  module `Q` (`torch`, or `dist` for `torch.distributed`), needs each `Q.a`, `Q.a.b`, ... it walks through;
- what stays loaded: what the module's kept top-level imports load: the imported modules, their packages,
  and what those packages import on their own (`PACKAGE_LOADS`: torch's FSDP2 package imports every module of
  `_fully_shard`, so any kept import from `torch.distributed.fsdp` loads `_fsdp_param` anyway). An import
  in a function loads only when it runs, and what other files import does not count.

An import whose module a kept chain walks through, and that nothing kept loads, stays: the first such import
of the file, in its order (the others of the same module go). A chain that only walks through a package
above the import's module (`torch.distributed.fsdp.X` after deleting an import of `..._fsdp_param`) does not
keep it: the package is what any FSDP2 import of the project loads.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Iterable

import libcst as cst

from fsdp_unpatch.analysis.patterns import dotted_name
from fsdp_unpatch.project.module_names import resolve_relative
from fsdp_unpatch.semantic.names import ImportTable

_FULLY_SHARD = "torch.distributed.fsdp._fully_shard"
# Modules that importing a package loads on its own (its `__init__` imports them), in every torch release
# with that package (`tests/test_rewrite_meaning.py` checks them against the installed torch).
PACKAGE_LOADS: dict[str, tuple[str, ...]] = {
    "torch": ("torch.distributed",),
    "torch.distributed.fsdp": (_FULLY_SHARD,),
    _FULLY_SHARD: tuple(
        f"{_FULLY_SHARD}.{name}"
        for name in (
            "_fsdp_api",
            "_fsdp_collectives",
            "_fsdp_common",
            "_fsdp_init",
            "_fsdp_param",
            "_fsdp_param_group",
            "_fsdp_state",
            "_fully_shard",
        )
    ),
}


# Modules known to have no submodules: what `from` one of them imports is never a module.
LEAVES = frozenset(m for loads in PACKAGE_LOADS.values() for m in loads if m not in PACKAGE_LOADS)


def _may_be_module(package: str, name: str) -> bool:
    """Whether `from package import name` may import a submodule (else it binds an attribute)."""
    if package in LEAVES:
        return False
    if package in PACKAGE_LOADS:  # a package whose submodules are known: they are loaded with it anyway
        return f"{package}.{name}" in PACKAGE_LOADS[package]
    return True


@functools.lru_cache(maxsize=1024)
def loaded_by(module: str) -> frozenset[str]:
    """Every module that `import module` loads: its packages, itself, and what they load (`PACKAGE_LOADS`)."""
    found: set[str] = set()
    stack = [module]
    while stack:
        current = stack.pop()
        parts = current.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if prefix not in found:
                found.add(prefix)
                stack.extend(PACKAGE_LOADS.get(prefix, ()))
    return frozenset(found)


@dataclass
class ImportLoads:
    """A module's imports and attribute chains, as the clean-up reads them (built once per module)."""

    loads: dict[int, frozenset[str]] = field(default_factory=dict)  # alias id -> what its import loads
    of: dict[int, str] = field(default_factory=dict)  # alias id -> the module it is an import of
    top_level: set[int] = field(default_factory=set)  # ids of aliases outside every function and class
    order: list[int] = field(default_factory=list)  # alias ids in the file's order
    chains: list[tuple[cst.Attribute, str]] = field(default_factory=list)  # dotted chains outside imports


def _alias_loads(table: ImportTable, statement: cst.CSTNode) -> Iterable[tuple[cst.ImportAlias, str, frozenset[str]]]:
    """(alias, the module it is an import of, what it loads) for each alias of an import statement."""
    if isinstance(statement, cst.Import):
        for alias in statement.names:
            name = dotted_name(alias.name)
            if name is not None:
                yield alias, name, loaded_by(name)
        return
    assert isinstance(statement, cst.ImportFrom)
    if isinstance(statement.names, cst.ImportStar):
        return
    base = dotted_name(statement.module) if statement.module is not None else ""
    module = resolve_relative(table.module, table.is_package, len(statement.relative), base or "")
    if not module:
        return
    for alias in statement.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        if _may_be_module(module, name):  # `from M import x`: M is loaded, and M.x when x is a submodule
            yield alias, f"{module}.{name}", loaded_by(module) | loaded_by(f"{module}.{name}")
        else:
            yield alias, module, loaded_by(module)


def import_loads(module: cst.Module, table: ImportTable) -> ImportLoads:
    found = ImportLoads()
    stack: list[tuple[cst.CSTNode, bool]] = [(module, True)]
    while stack:
        node, top = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            for alias, of, loads in _alias_loads(table, node):
                found.loads[id(alias)] = loads
                found.of[id(alias)] = of
                found.order.append(id(alias))
                if top:
                    found.top_level.add(id(alias))
            continue
        if isinstance(node, cst.Attribute):
            dotted = dotted_name(node)
            if dotted is not None:
                found.chains.append((node, dotted))
                continue
        inner = top and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
        stack.extend((child, inner) for child in reversed(node.children))
    return found  # the walk took the statements in the file's order


def chains_in(node: cst.CSTNode) -> list[str]:
    """The dotted chains of code a fix puts in (a replacement), as `import_loads` finds them."""
    found: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and (dotted := dotted_name(current)) is not None:
            found.append(dotted)
            continue
        stack.extend(current.children)
    return found


def needed_modules(table: ImportTable, chains: Iterable[str]) -> set[str]:
    """The modules (and attributes) each chain walks through past the module its head name stands for."""
    needed: set[str] = set()
    for dotted in chains:
        head, _, rest = dotted.partition(".")
        bound = table.bindings.get(head)
        if bound is None or not rest:
            continue
        walked = bound
        for part in rest.split("."):
            walked = f"{walked}.{part}"
            needed.add(walked)
    return needed


def still_needed(
    facts: ImportLoads,
    table: ImportTable,
    doomed: set[int],
    removed_nodes: set[int],
    added_chains: Iterable[str] = (),
) -> dict[int, str]:
    """The aliases of `doomed` that must stay, each with the module a kept chain needs it for: the first
    import of a module that a kept chain walks through and no kept top-level import loads.
    `removed_nodes`: ids of every node the fix deletes or replaces; `added_chains`: what it puts in."""
    candidates = [key for key in facts.order if key in doomed]
    if not candidates:
        return {}
    loaded: set[str] = set()
    for key in facts.top_level:
        if key not in doomed and key not in removed_nodes:
            loaded |= facts.loads[key]
    at_risk = {facts.of[key] for key in candidates} - loaded
    if not at_risk:
        return {}
    kept_chains = [dotted for node, dotted in facts.chains if id(node) not in removed_nodes]
    needed = needed_modules(table, [*kept_chains, *added_chains]) & at_risk
    keep: dict[int, str] = {}
    for key in candidates:
        module = facts.of[key]
        if module in needed and module not in loaded:
            keep[key] = module
            loaded |= facts.loads[key]
    return keep
