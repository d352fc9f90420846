"""What a file does to the modules in `sys.modules`: the entries it stores (`x.modules[key] = value`, read by
FSU107 `module_replacement.py` and FSU202 `test_patch.py` through `fsdp2_objects.fsdp2_module_entries`) and
the modules it reloads (`importlib.reload(module)`, read by FSU401 `stale_by_name_import.py`).

Facts, not decisions, so below the rules. Read from the `ast` model of the parsed text (`semantic/model.py`:
its tree and its functions), no libcst (issue 32 item 4): each entry stands where libcst places its subscript
(`planned.Located`) and is quoted as libcst's `code_for_node` gives it (`semantic/text.NodeText`). They are
the facts `analysis/collect.py` recorded from the libcst tree, read as libcst read them: an assignment's
target `<name or dotted name ending in modules>[...]`, its key the value of a string literal (literals written
side by side too; not an f-string or bytes) when the subscript has one element (`x["k",]` has one to libcst);
a call whose callee's last name is `reload`, in the innermost function whose `def` holds it (its decorators
and defaults too). One difference: a name is read as Python reads it (NFKC: `sys.ｍodules` is `sys.modules`),
where libcst kept it as written. A file the model cannot be built for (syntax newer than the running Python's)
has none.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.analysis.planned import Located
from fsdp_unpatch.semantic.imports import dotted
from fsdp_unpatch.semantic.text import NodeText

if TYPE_CHECKING:
    from fsdp_unpatch.semantic.model import SemanticModel

_BLOCKS = (ast.stmt, ast.excepthandler, getattr(ast, "match_case", ast.excepthandler))


@dataclass(frozen=True)
class ModuleEntry:
    """`owner[key] = value` with `owner` `modules` or a dotted name ending in `.modules` (the rules resolve it)."""

    at: Located  # the subscript, as libcst places it
    owner: str  # the subscripted name as spelled (`sys.modules`, `modules`)
    key: Optional[str]  # the string the subscript's one element is, else None
    spelled: str  # `target = value`, each quoted as libcst's `code_for_node` gives it


@dataclass(frozen=True)
class Reload:
    """A call whose callee's last name is `reload` (the rule resolves it)."""

    at: Located  # the call, as libcst places it
    callee: Optional[str]  # the callee as a dotted name, when it is one
    argument: Optional[str]  # the first argument (in the order of the source) as a dotted name, when it is one
    function: Optional[int]  # the index (`SemanticModel.functions`) of the innermost function holding the call


def module_entries(model: Optional[SemanticModel], text: str) -> list[ModuleEntry]:
    """The `sys.modules` entries the file `model` was built from (`text`) stores, in the order of the source;
    none without a model."""
    if model is None or model.tree is None:
        return []
    source: Optional[NodeText] = None  # made for the first entry
    found = []
    stack: list[ast.AST] = [model.tree]
    while stack:  # statements only: an assignment is one
        node = stack.pop()
        if isinstance(node, ast.Assign):
            for target in node.targets:
                owner = dotted(target.value) if isinstance(target, ast.Subscript) else None
                if owner is not None and owner.split(".")[-1] == "modules":
                    source = source or NodeText(text)
                    found.append(_entry(source, node, target, owner))
        stack.extend(reversed([child for child in ast.iter_child_nodes(node) if isinstance(child, _BLOCKS)]))
    return found


def _entry(source: NodeText, statement: ast.Assign, target: ast.expr, owner: str) -> ModuleEntry:
    assert isinstance(target, ast.Subscript)  # `owner` is what it subscripts
    line, column = source.start(target)
    end = source.column(target.end_lineno, target.end_col_offset)  # type: ignore[arg-type]
    first = source.lines[statement.lineno - 1]
    indentation = first[: len(first) - len(first.lstrip(" \t"))]
    spelled = f"{source.code(target, indentation)} = {source.code(statement.value, indentation)}"
    return ModuleEntry(Located(line, column, target.end_lineno, end), owner, _key(source, target.slice), spelled)  # type: ignore[arg-type]


def _key(source: NodeText, index: ast.expr) -> Optional[str]:
    """The string a subscript's one element is, as libcst's `evaluated_value` gives it: a string literal,
    literals side by side (an f-string among them: none), not bytes. `x["k",]` (a tuple to Python, whose
    place ends at its comma) is the one element `"k"` to libcst; `x[("k",)]` is a tuple."""
    if isinstance(index, ast.Tuple) and len(index.elts) == 1:
        end = source.offset(index.end_lineno, index.end_col_offset)  # type: ignore[arg-type]
        if source.text[end - 1] == ",":
            index = index.elts[0]
    return index.value if isinstance(index, ast.Constant) and isinstance(index.value, str) else None


def reloads(model: Optional[SemanticModel], text: str) -> Iterator[Reload]:
    """The calls of the file `model` was built from (`text`) whose callee's last name is `reload`; none without
    a model."""
    if model is None or model.tree is None:
        return
    functions = {id(function.node): index for index, function in enumerate(model.functions)}
    source: Optional[NodeText] = None
    stack: list[tuple[ast.AST, Optional[int]]] = [(model.tree, None)]
    while stack:
        node, function = stack.pop()
        if isinstance(node, ast.Call):
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if last == "reload":
                if source is None:
                    source = NodeText(text)
                yield _reload(source, node, function)
        inner = functions.get(id(node), function)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _reload(source: NodeText, call: ast.Call, function: Optional[int]) -> Reload:
    line, column = source.start(call)
    end = source.column(call.end_lineno, call.end_col_offset)  # type: ignore[arg-type]
    arguments = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    first = min(arguments, key=lambda a: (a.lineno, a.col_offset), default=None)
    at = Located(line, column, call.end_lineno, end)  # type: ignore[arg-type]
    return Reload(at, dotted(call.func), None if first is None else dotted(first), function)
