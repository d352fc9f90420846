"""`semantic/bindings.py` read with `ast`: the names a module binds at module level other than by imports.

The same walk as the libcst one, its quirks included: the blocks of `if`/`try`/`with`/`for`/`while` are
read, an `elif` only for its own block (not for what follows it), a block on its header's line
(`if x: y = 1`) and a `match` statement's cases not at all."""

from __future__ import annotations

import ast
from collections import Counter

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def module_level_bindings(tree: ast.Module, lines: list[str]) -> Counter:
    """`lines`: the module's source lines (an `elif` and a block on its header's line are told by them)."""
    found: Counter = Counter()

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Name):
            found[node.id] += 1
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)
        elif (name := _globals_key(node)) is not None:
            found[name] += 1  # `globals()["n"] = ...` binds `n` too

    def walk(statements: list[ast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, DEFINITIONS):
                found[statement.name] += 1
            elif isinstance(statement, ast.Assign):
                for target in statement.targets:
                    targets(target)
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets(statement.target)
            elif isinstance(statement, ast.AugAssign):
                targets(statement.target)
            elif not isinstance(statement, ast.Match):
                for block in _blocks(statement, lines):
                    walk(block)

    walk(tree.body)
    return found


def _globals_key(node: ast.AST) -> str | None:
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if call.args or call.keywords or not (isinstance(call.func, ast.Name) and call.func.id == "globals"):
        return None
    key = node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _blocks(statement: ast.stmt, lines: list[str]) -> list[list[ast.stmt]]:
    found: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if not isinstance(block, list) or not block:
            continue
        if name == "orelse" and isinstance(statement, ast.If) and _is_elif(block, lines):
            block = block[0].body  # libcst reads an `elif`'s own block only
        found.append(block)
    found += [handler.body for handler in getattr(statement, "handlers", [])]
    return [block for block in found if not _inline(block, lines)]


def _is_elif(orelse: list[ast.stmt], lines: list[str]) -> bool:
    first = orelse[0]
    return len(orelse) == 1 and isinstance(first, ast.If) and lines[first.lineno - 1].lstrip().startswith("elif")


def _inline(block: list[ast.stmt], lines: list[str]) -> bool:
    """A block on its header's line (`if x: y = 1`), which libcst's walk does not read."""
    line = lines[block[0].lineno - 1]
    indentation = line[: len(line) - len(line.lstrip(" \t"))]
    return len(indentation.encode("utf-8")) != block[0].col_offset
