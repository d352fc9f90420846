"""What a module imports from other modules (CPython's `ast`, no libcst); what it binds is `project/bindings.py`.

Shared by the import safety net (`run/import_net.py`: which files import the names a fix would unbind) and
FSU306 (`rules/broken_import.py`: an import of a name its module no longer binds). Both read the same facts,
so what the net protects is what the rule checks.
"""

from __future__ import annotations

import ast
import warnings
from collections import deque
from dataclasses import dataclass
from typing import AbstractSet, Iterator, Optional

from fsdp_unpatch.analysis import numbers
from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.fingerprint.same_device import dotted_name
from fsdp_unpatch.project.module_names import resolve_relative

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True)
class Imported:
    """`name` read from module `module` at `line`: `from module import name`, or `alias.name` on an import."""

    module: str
    name: str
    line: int
    column: int  # 1-based, of the statement or the attribute read
    guarded: bool  # under `if TYPE_CHECKING:` or in a `try` that handles the failure: a miss raises nothing
    through: Optional[str] = None  # `x.name` after `from P import x`: P (x may be P's own name, not a module)


def imports(
    tree: ast.Module, module: Optional[str], is_package: bool, only: Optional[AbstractSet[str]] = None
) -> list[Imported]:
    """What the module reads from other modules, by either spelling:
    `from M import n` (absolute or relative), and `x.n` where `x` is bound by `import M as x`,
    `import M` (then `M.n` spelled out), or `from P import x` (a submodule `P.x`, or a name of P).
    An alias is followed only when the module binds it once, at module level, and nothing else in the file
    binds that name (a parameter, a local, an `except ... as`): `x.n` then surely reads the module.
    `only`: the caller keeps only reads from these modules; the whole-file walk for `x.n` is skipped when no
    alias stands for one of them (`from` imports are still all listed: they cost one pass over statements)."""
    found: list[Imported] = []
    aliases: dict[str, Optional[tuple[str, Optional[str]]]] = {}  # local name -> (module, P); None: ambiguous

    def alias(name: str, target: str, through: Optional[str] = None) -> None:
        aliases[name] = (target, through) if aliases.get(name, (target, through)) == (target, through) else None

    for node, guarded, local in _statements(tree):
        if isinstance(node, ast.ImportFrom):
            base = resolve_relative(module, is_package, node.level, node.module or "")
            if base is None:
                continue
            for name in node.names:
                if name.name == "*":
                    continue
                found.append(Imported(base, name.name, node.lineno, node.col_offset + 1, guarded))
                if not guarded and not local:
                    alias(name.asname or name.name, f"{base}.{name.name}" if base else name.name, base)
        elif isinstance(node, ast.Import) and not guarded and not local:
            for name in node.names:
                if name.asname:
                    alias(name.asname, name.name)
                else:  # `import a.b` binds `a`, and is read spelled out: `a.b.n`
                    alias(name.name, name.name)
                    top = name.name.split(".")[0]
                    alias(top, top)
    if any(target is not None and (only is None or target[0] in only) for target in aliases.values()):
        found += _attribute_reads(tree, aliases)
    return found


def _statements(tree: ast.Module) -> Iterator[tuple[ast.stmt, bool, bool]]:
    """Every statement with whether a failed import there is handled (`try`, `if TYPE_CHECKING:`), and
    whether it lies in a function or class (its imports bind local names)."""
    stack: list[tuple[ast.stmt, bool, bool]] = [(s, False, False) for s in reversed(tree.body)]
    while stack:
        node, guarded, local = stack.pop()
        yield node, guarded, local
        inner = guarded
        nested = local or isinstance(node, _SCOPES)
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            inner = True
        elif isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend((s, guarded, local) for s in reversed(node.orelse))
            stack.extend((s, True, local) for s in reversed(node.body))
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in reversed(getattr(node, field, None) or []):
                if isinstance(child, ast.stmt):
                    stack.append((child, inner, nested))
                else:  # an except handler or a match case: their bodies
                    stack.extend((s, inner, nested) for s in reversed(child.body))


def _type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else test.id if isinstance(test, ast.Name) else None
    return name == "TYPE_CHECKING"


def _attribute_reads(tree: ast.Module, aliases: dict[str, Optional[tuple[str, Optional[str]]]]) -> list[Imported]:
    """`x.n` on a name bound by an import: (the module x stands for, n). A dotted `import a.b` is read as
    `a.b.n`; only the first attribute after the module counts (`x.n.m` reads n from x). Not followed: dunder
    attributes (`__name__`, `__file__`) every module has, and names the file binds otherwise too (a
    parameter, a local, an `except ... as`), which may stand for another object there."""
    reads: list[tuple[str, ast.Attribute]] = []
    bound: set[str] = set()
    for node in _walk(tree):
        if isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Load) and not (node.attr.startswith("__") and node.attr.endswith("__")):
                dotted = dotted_name(node.value)
                if dotted is not None and aliases.get(dotted) is not None:
                    reads.append((dotted, node))
        elif isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    found = []
    for dotted, node in reads:
        target = aliases[dotted]
        if target is not None and dotted.split(".")[0] not in bound:
            found.append(Imported(target[0], node.attr, node.lineno, node.col_offset + 1, False, target[1]))
    return found


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk`'s nodes in its order (breadth first), without the expression contexts (`Load`, `Store`: a
    third of a tree's nodes, none of which names anything) and without `iter_child_nodes`' generators: the
    file-wide walk for attribute reads is most of FSU306's time on a parsed file."""
    todo = deque([tree])
    pop, append, extend = todo.popleft, todo.append, todo.extend
    node_type = ast.AST
    while todo:
        node = pop()
        for field in node._fields:
            if field == "ctx":
                continue
            value = getattr(node, field, None)
            if isinstance(value, list):
                extend([item for item in value if isinstance(item, node_type)])
            elif isinstance(value, node_type):
                append(value)
        yield node


def parse(data: bytes) -> Optional[ast.Module]:
    """The module's tree, with its large displays of numbers held out (none of their elements binds or imports)."""
    return numbers.parse_held(data, _parse)


def _parse(data: bytes) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings(), no_cyclic_gc():
            warnings.simplefilter("ignore")  # invalid escapes and the like: the file's own business
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
