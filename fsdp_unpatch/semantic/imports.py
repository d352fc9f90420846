"""The import table of a file read with `ast`, as `analysis/collect.py` fills it from the libcst tree: every
import of the file in document order (any scope: the table is flat, the last binding wins), then the
module's own functions and the simple aliases of torch names."""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from fsdp_unpatch.semantic.names import ImportTable


def read_imports(tree: ast.AST, table: ImportTable) -> None:
    for node in in_order(tree):
        read_import(node, table)


def read_import(node: ast.AST, table: ImportTable) -> None:
    """What an `import` or `from ... import` binds (a star import binds nothing known); any other node: nothing."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            table.bind_import(alias.name, alias.asname, alias)
    elif isinstance(node, ast.ImportFrom) and not any(alias.name == "*" for alias in node.names):
        names = [(alias.name, alias.asname, alias) for alias in node.names]
        table.bind_import_from(node.level, node.module or "", names)


def add_aliases(table: ImportTable, module_functions: list[str], aliases: list[tuple[str, str]]) -> None:
    """A module-level function is named by its module from anywhere in the file; a simple alias
    (`C = torch....._fsdp_collectives`, `orig = C.foreach_reduce`) resolves through the imports."""
    if table.module:
        for name in module_functions:
            if name not in table.bindings:
                table.add_alias(name, f"{table.module}.{name}")
    for local, value in aliases:
        if local in table.bindings:
            continue
        qualified = table.qualify_dotted(value)
        if qualified.startswith("torch."):
            table.add_alias(local, qualified)


def dotted(node: ast.AST) -> Optional[str]:
    """`a.b.c` -> "a.b.c"; None for anything that is not a plain name or attribute chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool)):
        return str(node.value)  # a name to libcst (`None`, `True`, `False`)
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def in_order(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under `node`, each before its children, children in the order of their fields (the
    order of the source for every block that can hold an import)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(ast.iter_child_nodes(current))))
