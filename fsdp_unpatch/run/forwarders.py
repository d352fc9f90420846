"""Dynamic exports on the way to a removed name: the import net's second search (`import_net.py`).

A module may hand out names no statement of it binds: a module `__getattr__` (a package's lazy exports),
`from .patch import *`, `globals().update(...)`, or a `sys.modules["pkg.compat"] = patch` entry made elsewhere.
An importer of such a module (`from pkg import apply_npu_patch`) reaches the patch module without naming it,
so the first search, for importers of the changed module, cannot see it; after the fix its import fails.

A *forwarder* of a changed module M is another module of the project that
- exports dynamically (`project/bindings.py`: `bindings(...).open`) and reaches M: it is one of M's packages, or its file
  spells M's last name (`"npu_adapter"`, `from . import npu_adapter`); a name it binds itself is its own;
- or is a module name that a file of the project binds in `sys.modules` with a literal key.

An import of a lost name from a forwarder holds the fix back (FSU903 says which importer, which forwarder and
how it forwards): the tool cannot prove where the name comes from, and the user decides.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from fsdp_unpatch.project.bindings import bindings

# Bytes a file that may export dynamically spells (`project/bindings.py` decides).
DYNAMIC = (b"__getattr__", b"import *", b"globals()", b"vars()", b"modules")


@dataclass(frozen=True)
class Forwarder:
    module: str  # what an importer names (`pkg`, or the `sys.modules` key)
    how: str  # the dynamic export, as code: "`__getattr__`", "`from ... import *`", ...
    own: frozenset[str]  # the names the forwarder binds itself (an import of one of them is no forward)


def how_it_exports(tree: ast.Module) -> Optional[str]:
    """The first dynamic export of the module's top level, as code; None when it has none this net follows."""
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == "__getattr__":
            return "`__getattr__`"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return "`from ... import *`"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars"):
            return f"`{node.func.id}()`"
        if isinstance(node, ast.Attribute) and node.attr == "modules":
            return "`sys.modules`"
    return None


def module_entries(tree: ast.Module) -> list[str]:
    """The literal keys of `sys.modules[KEY] = ...` (and `modules[KEY] = ...`) anywhere in the module."""
    keys = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if not isinstance(target, ast.Subscript):
                continue
            owner = target.value
            named = (isinstance(owner, ast.Attribute) and owner.attr == "modules") or (
                isinstance(owner, ast.Name) and owner.id == "modules"
            )
            key = target.slice
            if named and isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.append(key.value)
    return keys


@dataclass(frozen=True)
class Exporter:
    """What the forwarder search needs of one file that may export dynamically, read from its tree once (the
    tree itself is not kept): its literal `sys.modules` keys, and how and what its top level exports."""

    entries: tuple[str, ...]  # `module_entries`
    how: Optional[str]  # `how_it_exports` when the module's bindings are open, else None
    own: frozenset[str]  # `bindings(...).names`


def exporter_of(tree: ast.Module, entries: bool = True) -> Exporter:
    """`entries`: whether the file may hold a `sys.modules` entry (False: its bytes spell no `modules[`, and the
    walk for them is skipped)."""
    bound = bindings(tree.body)
    keys = tuple(module_entries(tree)) if entries else ()
    return Exporter(keys, how_it_exports(tree) if bound.open else None, bound.names)


def forwarders_of(exporter: Exporter, data: bytes, names: list[tuple[str, bool]], changed: set[str]) -> list[Forwarder]:
    """The forwarders a file stands for, of the changed modules `changed` (all the names of one file).
    `names`: the file's module names (with whether each is a package)."""
    found: list[Forwarder] = []
    for key in exporter.entries:
        if key not in changed:
            found.append(Forwarder(key, "`sys.modules`", frozenset()))
    if any(name in changed for name, _ in names):
        return found  # the changed module itself: its importers are the first search's
    if exporter.how is None:
        return found
    tails = {m.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape") for m in changed}
    spelled = any(tail in data for tail in tails)
    for name, is_package in names:
        above = is_package and any(m.startswith(name + ".") for m in changed)
        if spelled or above:
            found.append(Forwarder(name, exporter.how, exporter.own))
    return found
