"""Names a module binds at module level other than by imports, and how often; and the statements of a block
(`body_statements`), which this walk and the analysis share."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import libcst as cst

from fsdp_unpatch.semantic.names import dotted_name


def body_statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    return ()


def module_level_bindings(module: cst.Module, imports: bool = False) -> Counter:
    """How often each name is bound at module level by a statement other than an import (`def`, `class`,
    assignment), blocks of `if`/`try`/`with`/`for` included, function and class bodies not. `imports`: count
    the names imports bind too (every binding, as the census of `fingerprint/census.py` counts them)."""
    found: Counter = Counter()

    def targets(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            found[node.value] += 1
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                targets(element.value)
        elif (name := _globals_key(node)) is not None:
            found[name] += 1

    def walk(statements) -> None:
        for statement in statements:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                found[statement.name.value] += 1
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            targets(target.target)
                    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and small.value is not None:
                        targets(small.target)
                    elif imports and isinstance(small, (cst.Import, cst.ImportFrom)):
                        if not isinstance(small.names, cst.ImportStar):
                            for alias in small.names:
                                name = dotted_name(alias.asname.name if alias.asname is not None else alias.name)
                                found[(name or "") if alias.asname is not None else (name or "").split(".")[0]] += 1
            else:
                for attribute in ("body", "orelse", "finalbody", "handlers"):
                    child = getattr(statement, attribute, None)
                    if isinstance(child, (list, tuple)):
                        for item in child:
                            walk(body_statements(item.body) if hasattr(item, "body") else [item])
                    elif isinstance(child, cst.BaseSuite):
                        walk(body_statements(child))
                    elif child is not None and hasattr(child, "body"):
                        walk(body_statements(child.body) if isinstance(child.body, cst.BaseSuite) else [child])

    walk(module.body)
    return found


def _globals_key(node: cst.CSTNode) -> str | None:
    """ "n" for the target `globals()["n"]`: a module-level binding of `n` by another spelling."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1):
        return None
    call, index = node.value, node.slice[0].slice
    if not (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Name)):
        return None
    if call.func.value != "globals" or not isinstance(index, cst.Index):
        return None
    key = index.value.evaluated_value if isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString)) else None
    return key if isinstance(key, str) else None
