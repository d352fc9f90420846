"""Import fallbacks resolved with the catalog: which binding of a name a module's functions see.

    try:
        from torch.distributed.fsdp._fully_shard._fsdp_common import compiled_autograd_enabled
    except ImportError:
        def compiled_autograd_enabled(): ...

The name is bound twice at module level, so on its own the analysis takes it for the module's own
(`plan.py`, `scope`), and a copy calling it never equals upstream. But when the per-release symbol tables
show that every import of the `try` succeeds on the torch release the proof is for (the target torch),
the handler never runs there: the name is FSDP2's. A fallback whose import fails on that release (the name
is not there yet, or no more, or the package path is another release's) is what runs: the module's own.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Optional

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import SymbolTables
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.fingerprint.same_device import dotted_name
from fsdp_unpatch.project.bindings import counts
from fsdp_unpatch.semantic.names import target_id

# The releases whose FSDP2 package is at each root: `_fully_shard` from torch 2.6; the old package before.
ROOT_RELEASES = {
    "torch.distributed.fsdp._fully_shard": (Version(2, 6), None),
    "torch.distributed._composable.fsdp": (None, Version(2, 5)),
}
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _catches_import_errors(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True  # a bare `except:`
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((dotted_name(kind) or "").split(".")[-1] in IMPORT_ERRORS for kind in kinds)


def _imports_succeed(
    body: list[ast.stmt], catalog: Catalog, symbols: SymbolTables, torch: Version
) -> Optional[set[str]]:
    """The local names a `try` body imports, when it holds only `from <FSDP2 module> import ...` statements
    that all succeed on `torch`; else None."""
    names: set[str] = set()
    for statement in body:
        if not isinstance(statement, ast.ImportFrom) or statement.level or statement.module is None:
            return None
        if any(alias.name == "*" for alias in statement.names):
            return None
        module = statement.module
        root = next((r for r in ROOT_RELEASES if module == r or module.startswith(r + ".")), None)
        if root is None:
            return None
        first, last = ROOT_RELEASES[root]
        if (first is not None and torch < first) or (last is not None and torch > last):
            return None  # the package path is another release's
        for alias in statement.names:
            target = target_id(f"{module}.{alias.name}", catalog)
            releases = symbols.releases(target) if target else None
            if not releases or (str(torch) not in releases and not _newer_than_tables(torch, symbols, releases)):
                return None
            names.add(alias.asname or alias.name)
    return names or None


def _newer_than_tables(torch: Version, symbols: SymbolTables, releases: frozenset[str]) -> bool:
    """A torch newer than every release the tables know is taken to be like the newest one."""
    newest = symbols.minors[-1]
    return torch > Version.parse(newest) and newest in releases


def resolved_fallbacks(
    tree: ast.Module, catalog: Catalog, symbols: SymbolTables, torch: Version, imports: bool = False
) -> Counter:
    """How often each name is bound at module level in an `except ImportError:` handler that never runs on
    `torch` (its `try` imports the name from FSDP2 and the import succeeds there), counted as
    `project/bindings.counts` counts the module's (`imports`: imports too, as the census counts: a fallback
    nested in a handler, `except ImportError: try: from <older home> import f` ..., never runs when its
    handler does not)."""
    found: Counter = Counter()
    for statement in tree.body:
        if not isinstance(statement, ast.Try) or statement.orelse or statement.finalbody:
            continue
        imported = _imports_succeed(statement.body, catalog, symbols, torch)
        if imported is None:
            continue
        for handler in statement.handlers:
            if not _catches_import_errors(handler):
                continue
            bound = counts(handler.body, imports)
            found.update({name: count for name, count in bound.items() if name in imported})
    return found
