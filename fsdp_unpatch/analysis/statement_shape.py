"""What libcst will see of a top-level statement, told from CPython's tree and the file's bytes: its blocks
and their indentation (libcst gives comments below an indented block to that block's footer), the names it
binds at module level, and the kind the module-shape rules see in it (`kind_of`). Used by `excerpt.py`.
"""

from __future__ import annotations

import ast
from typing import Optional

_BLOCK_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")


def is_indented(node: ast.stmt, data: bytes, starts: list[int], base: int) -> bool:
    """Whether a block's first statement starts its own line (an indented block, not `if x: pass`)."""
    offset = starts[base + node.lineno - 1]
    return data[offset : offset + node.col_offset].strip() == b""


def blocks_of(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement's blocks in source order (an `elif` is an `if` inside `orelse`)."""
    blocks: list[list[ast.stmt]] = []
    for name in _BLOCK_FIELDS:
        value = getattr(statement, name, None)
        if not value:
            continue
        if name in ("handlers", "cases"):
            blocks += [clause.body for clause in value]
        else:
            blocks.append(value)
    return blocks


def indentation(node: ast.stmt, data: bytes, starts: list[int], base: int) -> bytes:
    """The whitespace before the statement on its line."""
    offset = starts[base + node.lineno - 1]
    return data[offset : offset + node.col_offset]


def last_block(statement: ast.stmt, data: bytes, starts: list[int], base: int) -> Optional[list[ast.stmt]]:
    """The block the statement's text ends with (of its last `elif`, for a chain)."""
    while True:
        blocks = blocks_of(statement)
        if not blocks:
            return None
        last = blocks[-1]
        chained = isinstance(statement, ast.If) and last is statement.orelse and len(last) == 1
        if chained and isinstance(last[0], ast.If):
            offset = starts[base + last[0].lineno - 1] + last[0].col_offset
            if data[offset : offset + 4] == b"elif":
                statement = last[0]
                continue
        return last


def block_facts(
    statement: ast.stmt, data: bytes, starts: list[int], base: int
) -> tuple[Optional[bytes], Optional[bytes]]:
    """(the indentation of the indented block its text ends with, else None; of its first indented block)."""
    first_indent = None
    stack = [statement]
    while stack and first_indent is None:
        node = stack.pop(0)
        for block in blocks_of(node):
            if is_indented(block[0], data, starts, base):
                first_indent = indentation(block[0], data, starts, base)
                break
            stack.extend(block)  # a one-line suite holds simple statements only; kept for clarity
    last = last_block(statement, data, starts, base)
    if last is None or not is_indented(last[0], data, starts, base):
        return None, first_indent
    return indentation(last[0], data, starts, base), first_indent


# Statements that only bind names (or do nothing): what a module keeps without it mattering.
DEFINITION_TYPES = (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.Pass)


def is_test(statement: ast.stmt) -> bool:
    """A test function or test class, as `analysis/test_modules.py` tells them."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return statement.name.startswith("test")
    if isinstance(statement, ast.ClassDef):
        methods = [s for s in statement.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        named = statement.name.startswith("Test") or bool(statement.bases)
        return named and any(m.name.startswith("test") for m in methods)
    return False


def _is_docstring(statement: ast.Expr, source: bytes) -> bool:
    """A string (or bytes) literal alone, as `patterns.is_docstring` tells it on libcst's tree, where a
    concatenation with an f-string is one (libcst decides: CPython joins the parts into one f-string)."""
    value = statement.value
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (str, bytes))
    if not isinstance(value, ast.JoinedStr):
        return False
    import libcst as cst

    try:
        line = cst.parse_statement(source.decode("utf-8"))
    except (cst.ParserSyntaxError, UnicodeDecodeError):
        return False
    body = list(getattr(line, "body", []))
    return len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.ConcatenatedString)


def is_quiet(statement: ast.stmt, source: bytes) -> bool:
    """What a module keeps without it mattering (`analysis/test_modules.py::_left_over`): assignments and imports, a
    string, a `__name__` guard, a guarded import. `source`: the statement's lines."""
    if isinstance(statement, DEFINITION_TYPES):
        return True
    if isinstance(statement, ast.Expr):
        return _is_docstring(statement, source)
    if isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare):
        sides = [statement.test.left, *statement.test.comparators]
        return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
    if isinstance(statement, ast.Try):
        blocks = [statement.body, *(h.body for h in statement.handlers)]
        return all(isinstance(s, DEFINITION_TYPES) for block in blocks for s in block)
    return False


def kind_of(statement: ast.stmt, source: bytes) -> str:
    """What the module-shape rules (new imports go before the first definition; a test module left with
    nothing) see in a statement: "test", "definition" (other functions and classes), "quiet" or "other"."""
    if is_test(statement):
        return "test"
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return "definition"
    return "quiet" if is_quiet(statement, source) else "other"
