"""A function's source as libcst's `code_for_node` gives it, sliced from the file text with `ast` positions.

libcst hands the blank and comment lines around statements to the nodes as follows, and the slice
follows it:
- a statement owns the blank and comment lines above it (its `leading_lines`), except at the top of the
  file (the module's header owns them) and except, after a block that ends (a dedent), the lines up to the
  last one that starts with that block's indentation (the block's footer owns them);
- a function's body owns, as its footer, the lines after it up to the last one that starts with the
  body's indentation;
- the code is given without the indentation of the block the `def` is in (a string literal's lines keep
  theirs).

The fingerprint comparison reads this text, and counts the lines of its differences from the `def` line
minus the leading lines (as the planner always did: decorators are not counted).
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Optional, Union

from fsdp_unpatch.semantic.text import dedent_lines, physical_lines

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
BLOCK_FIELDS = ("body", "orelse", "finalbody")


class FunctionSources:
    def __init__(self, text: str, tree: ast.Module) -> None:
        self.lines = physical_lines(text)
        first_end = re.search(r"\r\n|\r|\n", text)
        self.newline = first_end.group() if first_end else "\n"
        self.tree = tree

    @functools.cached_property
    def places(self) -> dict[int, tuple[list[ast.stmt], int]]:
        """id(statement) -> (the statement list it is in, its index there); walked on the first slice."""
        places = {}
        for node in ast.walk(self.tree):
            for block in _blocks(node):
                for index, statement in enumerate(block):
                    places[id(statement)] = (block, index)
        return places

    def of(self, node: FunctionNode) -> tuple[str, int]:
        """The function's source and the file line its differences count from."""
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        leading = self.leading_lines(node, first)
        end = self.footer_end(node)
        text = "".join(self.lines[first - 1 - leading : end])
        if not text.endswith(("\n", "\r")):  # the file's last line: libcst ends it as the file's first one
            text += self.newline
        return dedent_lines(text, _indentation(self.lines[node.lineno - 1])), node.lineno - leading

    def leading_lines(self, node: ast.stmt, first: int) -> int:
        """How many blank and comment lines above line `first` the statement owns."""
        block, index = self.places[id(node)]
        if block is self.tree.body and index == 0:
            return 0  # the module's header owns them
        gap = []
        line = first - 1
        while line >= 1 and _empty(self.lines[line - 1]):
            gap.append(line)
            line -= 1
        gap.reverse()  # file lines, top first
        if index > 0:
            ended = _ended_block_indentation(block[index - 1], self.lines)
            if ended is not None:
                footer = [n for n in gap if self.lines[n - 1].startswith(ended)]
                if footer:
                    gap = [n for n in gap if n > footer[-1]]
        return len(gap)

    def footer_end(self, node: FunctionNode) -> int:
        """The last file line of the function with its body's footer."""
        end = node.end_lineno or node.lineno
        indentation = _block_indentation(node.body, self.lines)
        if indentation is None:
            return end
        line, last = end + 1, end
        while line <= len(self.lines) and _empty(self.lines[line - 1]):
            if self.lines[line - 1].startswith(indentation):
                last = line
            line += 1
        return last


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    found = [getattr(node, name) for name in BLOCK_FIELDS if isinstance(getattr(node, name, None), list)]
    found += [handler.body for handler in getattr(node, "handlers", [])]
    found += [case.body for case in getattr(node, "cases", [])]
    return [block for block in found if block and isinstance(block[0], ast.stmt)]


def _last_block(statement: ast.stmt) -> Optional[list[ast.stmt]]:
    """The block of a compound statement that comes last in the file (`else`, the last `except`, ...)."""
    blocks = _blocks(statement)
    return max(blocks, key=lambda block: block[-1].end_lineno or 0) if blocks else None


def _block_indentation(block: list[ast.stmt], lines: list[str]) -> Optional[str]:
    """The indentation of an indented block; None for a block on its header's line (`if x: y`)."""
    text = lines[block[0].lineno - 1]
    indentation = _indentation(text)
    own_line = len(text[: len(indentation)].encode("utf-8")) == block[0].col_offset
    return indentation if own_line and indentation else None


def _ended_block_indentation(statement: ast.stmt, lines: list[str]) -> Optional[str]:
    block = _last_block(statement)
    return None if block is None else _block_indentation(block, lines)


def _empty(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
