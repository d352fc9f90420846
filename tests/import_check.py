"""An independent check that a tree still imports (issue 25): written apart from the tool's own
`analysis/bindings.py`, so that a fault there cannot hide a broken tree from the tests.

`unbound_imports(root)`: every `from M import n` (absolute or relative) in a Python file below `root`,
where M is a module of the tree (reached under any path, links included), and n is neither bound at
M's top level nor a submodule of M. Modules that bind names no statement spells (`import *`,
`__getattr__`) are trusted.
"""

from __future__ import annotations

import ast
import functools
import os
import warnings
from pathlib import Path


def _modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, subfolders, names in os.walk(root, followlinks=True):
        subfolders[:] = [s for s in subfolders if not s.startswith(".") and s != "__pycache__"]
        for name in names:
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            # the module name from the packages around it (as the path spells them, links included)
            dotted = [path.stem]
            here = path.parent
            while (here / "__init__.py").exists() and here != root.parent:
                dotted.insert(0, here.name)
                here = here.parent
            if dotted[-1] == "__init__":
                dotted.pop()
            if dotted:
                found.setdefault(".".join(dotted), path)
    return found


def _bound(tree: ast.Module) -> tuple[set[str], bool]:
    names: set[str] = set()
    trusted = False

    def visit(body) -> None:
        nonlocal trusted
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                trusted |= node.name == "__getattr__"
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name == "*":
                        trusted = True
                    names.add(alias.asname or alias.name.split(".")[0])
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                    names.add(sub.id)
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(sub.name)
                elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0] for a in sub.names)
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(node, field, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                visit(handler.body)

    visit(tree.body)
    return names, trusted


@functools.cache
def _facts(source: bytes) -> tuple[frozenset[str], bool, tuple[tuple[int, str, int, tuple[str, ...]], ...]]:
    """What a module's bytes bind at top level, whether it is trusted, and its `from` imports (level, module,
    line, names) in `ast.walk` order. Kept per content: the sweep asks again for every file a fix left alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in the tree's strings: its own business
        tree = ast.parse(source)
    bound, trusted = _bound(tree)
    imports = tuple(
        (node.level, node.module or "", node.lineno, tuple(alias.name for alias in node.names))
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    )
    return frozenset(bound), trusted, imports


def unbound_imports(root: Path) -> list[str]:
    """`FILE:LINE: from M import n` for each import of a name that tree module M does not bind."""
    modules = _modules(root)
    facts = {}
    problems = []
    for name, path in sorted(modules.items()):
        try:
            facts[name] = _facts(path.read_bytes())
        except (SyntaxError, OSError) as error:
            problems.append(f"{path}: does not parse: {error}")
    for name, (_, _, imports) in facts.items():
        path = modules[name]
        is_package = path.name == "__init__.py"
        for level, module, line, names in imports:
            base = module
            if level:
                parts = name.split(".")
                if not is_package:
                    parts = parts[:-1]
                parts = parts[: len(parts) - (level - 1)]
                base = ".".join(parts + ([base] if base else []))
            if base not in facts:
                continue
            bound, trusted, _ = facts[base]
            for imported in names:
                if imported == "*" or trusted or imported in bound or f"{base}.{imported}" in modules:
                    continue
                problems.append(f"{path.relative_to(root)}:{line}: from {base} import {imported}")
    return problems
