"""Small syntactic patterns the analysis looks for, each a pure function of libcst nodes, and the names libcst
nodes spell (`dotted_name`, `qualify`, `bind_imports`: what `semantic/names.ImportTable` reads)."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Iterator, Optional, Union

import libcst as cst

if TYPE_CHECKING:
    from fsdp_unpatch.semantic.names import ImportTable


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` -> "a.b.c"; None for anything that is not a plain name or attribute chain."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def qualify(table: ImportTable, node: cst.BaseExpression) -> Optional[str]:
    """The qualified name an expression stands for in the file of `table`; an unbound head name stands for
    itself."""
    name = dotted_name(node)
    return None if name is None else table.qualify_dotted(name)


def bind_imports(table: ImportTable, node: Union[cst.Import, cst.ImportFrom]) -> None:
    """What an import statement binds, into `table` (each name with the alias that removing it deletes)."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            asname = alias.asname.name.value if alias.asname is not None else None  # type: ignore[union-attr]
            table.bind_import(_module_name(alias.name), asname, alias)
        return
    if isinstance(node.names, cst.ImportStar):
        return
    base = _module_name(node.module) if node.module is not None else ""
    names = [
        (_module_name(a.name), a.asname.name.value if a.asname is not None else None, a)  # type: ignore[union-attr]
        for a in node.names
    ]
    table.bind_import_from(len(node.relative), base, names)


def _module_name(node: cst.BaseExpression) -> str:
    name = dotted_name(node)
    assert name is not None  # the grammar only allows names here
    return name


def single_call(block: cst.BaseSuite) -> Optional[tuple[cst.SimpleStatementLine, cst.Call]]:
    """The call of a block made of exactly one call statement, as a statement line of its own (a one-line
    suite, `if x: f()`, gives a new line holding the call)."""
    if isinstance(block, cst.SimpleStatementSuite):
        line = cst.SimpleStatementLine(body=block.body)
    elif isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        line = block.body[0]  # type: ignore[assignment]
    else:
        return None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    expr = line.body[0]
    if isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call):
        return line, expr.value
    return None


def setattr_install(call: cst.Call) -> Optional[tuple[cst.BaseExpression, str, cst.BaseExpression]]:
    """`setattr(obj, "name", value)` -> (obj, name, value)."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "setattr"):
        return None
    if len(call.args) != 3 or any(a.keyword is not None or a.star for a in call.args):
        return None
    name = call.args[1].value
    if not isinstance(name, cst.SimpleString):
        return None
    literal = name.evaluated_value
    if not isinstance(literal, str):
        return None
    return call.args[0].value, literal, call.args[2].value


def is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it."""
    yield node
    for child in node.children:
        yield from descendants(child)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # a node type's fields, which hold its children


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children` in no set order: read from the node's fields, where `CSTNode.children` builds a
    copy of the node to list them (a walk of a whole module took about three times as long)."""
    names = _CHILD_FIELDS.get(type(node))
    if names is None:
        names = _CHILD_FIELDS[type(node)] = tuple(f.name for f in fields(node))
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            found.append(value)
        elif type(value) in (list, tuple):
            found.extend(v for v in value if isinstance(v, cst.CSTNode))
    return found


def nodes_in(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, each before the nodes below it, in no other set order (`descendants`
    in lexical order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(child_nodes(current))


def top_level_function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    """The module-level `def name`, if any (the first one)."""
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    return None
