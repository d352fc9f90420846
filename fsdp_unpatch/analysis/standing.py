"""The libcst node that stands where the `ast` model places something: how a decision made on the model
finds the node its edit is made on (issue 32 item 4: libcst only writes)."""

from __future__ import annotations

from typing import Iterator, Optional, TypeVar

import libcst as cst

from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.patterns import child_nodes
from fsdp_unpatch.analysis.planned import Located

Node = TypeVar("Node", bound=cst.CSTNode)


def node_at(
    result: FileAnalysis, top: int, at: tuple[int, int], kind: type[Node]
) -> Optional[tuple[Node, Optional[cst.FunctionDef]]]:
    """The `kind` node whose first token stands at `at` ((line from 1, column from 0 in characters) in the
    parsed text) in the module's statement holding the `top`th top-level statement of `ast`'s tree, with the
    innermost function around it; None when no such node stands there."""
    statement = top_level_statement(result.module, top)
    if statement is None:
        return None
    place = result.position(Located(*at, *at)).start
    for node, function in nodes_of(statement, kind, None):
        if result.position(node).start == place:
            return node, function
    return None


def top_level_statement(module: cst.Module, index: int) -> Optional[cst.BaseStatement]:
    """The module's statement holding the `index`th top-level statement of `ast`'s tree (a libcst statement
    line holds one `ast` statement per small statement, `a = 1; b = 2`)."""
    at = 0
    for statement in module.body:
        size = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        if index < at + size:
            return statement
        at += size
    return None


def nodes_of(
    node: cst.CSTNode, kind: type[Node], function: Optional[cst.FunctionDef]
) -> Iterator[tuple[Node, Optional[cst.FunctionDef]]]:
    """Every `kind` node in `node` (itself included), in source order, with the innermost function around it."""
    if isinstance(node, kind):
        yield node, function
    if isinstance(node, cst.BaseExpression) and not issubclass(kind, cst.BaseExpression):
        return  # no statement inside an expression
    inner = node if isinstance(node, cst.FunctionDef) else function
    for child in child_nodes(node):
        yield from nodes_of(child, kind, inner)
