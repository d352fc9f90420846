"""Where libcst nodes stand, without a metadata pass over the whole module.

libcst's `PositionProvider` generates the code of the whole module to place every node. Here only the
top-level statement holding an asked node is generated (in file order, each at most once), started at the
line the `ast` model places it on (`SemanticModel.statement_lines`): a top-level statement starts at column 0,
and the nodes inside it stand where the whole module's code would put them. Positions equal
`PositionProvider`'s (a test compares every node of the repository's sources). Without the statement lines,
or for a node outside every statement (the module itself), the whole-module pass is made once.
"""

from __future__ import annotations

import bisect
from typing import Optional, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState


class Positions:
    def __init__(self, module: cst.Module, statement_lines: Optional[list[int]]) -> None:
        self.module = module
        self.starts = statement_starts(module, statement_lines) if statement_lines is not None else None
        self.found: dict[cst.CSTNode, tuple[CodeRange, int]] = {}  # node -> its range in its statement, the shift
        self.placed = 0  # top-level statements placed so far, in file order
        self.done: set[int] = set()  # the top-level statements placed (out of order too: `statement_at`)
        self.whole: Optional[object] = None  # the whole-module positions, once made

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self.starts is not None:
            while node not in self.found and self.placed < len(self.starts):
                if self.placed not in self.done:
                    self.place(self.placed)
                self.placed += 1
            if node in self.found:
                where, shift = self.found[node]
                if not shift:
                    return where
                return CodeRange(
                    CodePosition(where.start.line + shift, where.start.column),
                    CodePosition(where.end.line + shift, where.end.column),
                )
        if self.whole is None:
            self.whole = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self.whole[node]  # type: ignore[index]

    def statement_at(self, line: int) -> Optional[cst.BaseStatement]:
        """The top-level statement a node on `line` (a line of a statement's code, not of its leading comments)
        is in, with its nodes placed (it alone, not those before it); None without the statement lines."""
        if self.starts is None:
            return None
        index = bisect.bisect_right(self.starts, line) - 1
        if index < 0:
            return None
        if index not in self.done:
            self.place(index)
        return self.module.body[index]

    def place(self, index: int) -> None:
        """The positions of every node in the module's `index`th statement."""
        assert self.starts is not None
        self.done.add(index)
        statement = self.module.body[index]
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=provider,
        )
        statement._codegen(state)
        computed = cast("dict[cst.CSTNode, CodeRange]", provider._computed)
        # Generated from line 1: its leading lines come first, then its first token, which `ast` places.
        shift = self.starts[index] - computed[statement].start.line
        for node, where in computed.items():
            self.found[node] = (where, shift)


def statement_starts(module: cst.Module, statement_lines: list[int]) -> Optional[list[int]]:
    """The line of each of the module's top-level statements' first token (`def`/`class` for a decorated
    one, as libcst places it), from the lines of `ast`'s statements: a libcst statement line holds one `ast`
    statement per small statement (`a = 1; b = 2`). None when the two do not pair up."""
    starts = []
    at = 0
    for statement in module.body:
        if at >= len(statement_lines):
            return None
        starts.append(statement_lines[at])
        at += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return starts if at == len(statement_lines) else None
