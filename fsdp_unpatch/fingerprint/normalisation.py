"""What a normalisation is (`Normalisation`, the `Context` it may know) and the ``ast`` helpers its
rewrites share. The units are in `spelling.py` (how a copy is written) and `device_facts.py` (what a fact
about the device or the callers makes equal); `normalise.py` puts them in order.

Stdlib only, Python >= 3.9.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Union

from fsdp_unpatch.fingerprint.scope import Scope

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
# What the examples' functions may name: they are compiled in a module that imports these (and `FSDPParam`).
TORCH_IMPORTS = "import torch\nimport torch.distributed as dist\n"


@dataclass(frozen=True)
class Context:
    """What a normalisation may know about one side of a comparison."""

    scope: Scope
    # The catalog proves that every caller of the target, in every supported release, runs under no_grad.
    no_grad_proven: bool = False
    # The upstream side: its own spellings are taken as they are (`torch.cuda.current_stream()` in an old
    # release is that release's device stream; in a copy for the NPU it is not).
    upstream: bool = False


Trace = tuple


@dataclass(frozen=True)
class Normalisation:
    name: str
    label: str  # what a report says when it was needed ("" for the ones never worth saying)
    rewrite: Callable[[FunctionNode, Context], Trace]
    # (candidate, upstream) function sources, in a module that imports `torch`, `torch.distributed as
    # dist` and FSDP2's `FSDPParam`; `no_grad_proven` holds for them.
    must_match: tuple[tuple[str, str], ...] = ()
    must_differ: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def is_docstring(stmt: ast.stmt) -> bool:
    """A string on its own as a statement."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def all_args(args: ast.arguments) -> list[ast.arg]:
    """Every parameter, positional-only to `**kwargs`."""
    out = list(args.posonlyargs) + list(args.args)
    if args.vararg:
        out.append(args.vararg)
    out += list(args.kwonlyargs)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def local_names(fn: FunctionNode) -> set[str]:
    """Names bound inside the function (parameters, assignments, loop/with/except targets, nested defs,
    comprehension variables), less the ones declared ``global``."""
    bound = {a.arg for a in all_args(fn.args)}
    declared_global: set[str] = set()
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bound.add(node.id)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.Global):
                declared_global.update(node.names)
            elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
                bound.add(getattr(node, "name"))  # noqa: B009 (ast.MatchAs is Python >= 3.10)
    return bound - declared_global


def statement_lists(node: ast.AST):
    """Every list of statements in a tree (bodies, else branches, handlers), outermost first."""
    for child in ast.walk(node):
        for field_name in ("body", "orelse", "finalbody"):
            value = getattr(child, field_name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value
