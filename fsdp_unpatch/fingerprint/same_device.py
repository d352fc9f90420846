"""The NPU tweak, recognised in one place: the same-device `non_blocking=True` copy.

    if dst[0].device == src[0].device:
        torch._foreach_copy_(dst, src, non_blocking=True)
    else:
        torch._foreach_copy_(dst, src)

Either operand order, `==`, `!=` or `not (...)`, the flag by keyword or position, and the tweak written as one
call (`torch._foreach_copy_(dst, src, non_blocking=dst[0].device == src[0].device)`). The fingerprints fold it
away before comparing with upstream (`fingerprint/normalise.py`) and FSU005 collapses it where it stands
(`analysis/copies.py`): both ask this module, so they cannot disagree. Pure `ast`, no libcst.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Optional

FOREACH_COPY = "torch._foreach_copy_"

# Whether a call's function is `torch._foreach_copy_` (each caller resolves names its own way).
IsCopy = Callable[[ast.expr], bool]


def dotted_name(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def spelled_as_copy(func: ast.expr) -> bool:
    return dotted_name(func) == FOREACH_COPY


def copy_arguments(stmt: ast.stmt, is_copy: IsCopy) -> Optional[tuple[ast.expr, ast.expr, bool]]:
    """(dst, src, non_blocking) for the statement ``torch._foreach_copy_(dst, src[, flag])``; the flag must be
    a literal `True`/`False` (by position or keyword), anything else is another call."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if not is_copy(call.func) or len(call.args) not in (2, 3) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    flags = list(call.args[2:])
    for keyword in call.keywords:
        if keyword.arg != "non_blocking":
            return None
        flags.append(keyword.value)
    if len(flags) > 1:
        return None
    if not flags:
        return call.args[0], call.args[1], False
    if not (isinstance(flags[0], ast.Constant) and isinstance(flags[0].value, bool)):
        return None
    return call.args[0], call.args[1], flags[0].value


def _first_device(node: ast.expr) -> Optional[ast.expr]:
    """X for ``X[0].device``."""
    if isinstance(node, ast.Attribute) and node.attr == "device" and isinstance(node.value, ast.Subscript):
        index = node.value.slice
        if isinstance(index, ast.Constant) and index.value == 0 and not isinstance(index.value, bool):
            return node.value.value
    return None


def same_device_test(test: ast.expr) -> Optional[tuple[ast.expr, ast.expr, bool]]:
    """(X, Y, equal) for ``X[0].device == Y[0].device`` (``!=`` / ``not (==)`` give equal=False)."""
    negate = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negate, test = True, test.operand
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = _first_device(test.left), _first_device(test.comparators[0])
    if left is None or right is None:
        return None
    return left, right, isinstance(test.ops[0], ast.Eq) != negate


def _plain(node: ast.expr) -> bool:
    """Names, attributes and constant subscripts only: reading it twice is reading the same thing (a call in
    an operand would run again, or not at all, once the branches are one)."""
    plain = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.expr_context)
    return all(isinstance(part, plain) for part in ast.walk(node))


def _same_operands(a: tuple[ast.expr, ast.expr], b: tuple[ast.expr, ast.expr]) -> bool:
    return sorted(map(ast.dump, a)) == sorted(map(ast.dump, b))


@dataclass(frozen=True)
class Tweak:
    """A matched `if`: which branch is already the native call (0: the body, 1: the `else`)."""

    native_branch: int


def match_if(node: ast.If, is_copy: IsCopy = spelled_as_copy) -> Optional[Tweak]:
    """The tweak as an `if`/`else` whose branches are one copy statement each."""
    test = same_device_test(node.test)
    if test is None or len(node.body) != 1 or len(node.orelse) != 1:
        return None
    x, y, equal = test
    same, other = (node.body[0], node.orelse[0]) if equal else (node.orelse[0], node.body[0])
    fast, slow = copy_arguments(same, is_copy), copy_arguments(other, is_copy)
    if fast is None or slow is None or not fast[2] or slow[2]:
        return None  # the non-blocking copy must be the same-device branch, and only it
    if ast.dump(fast[0]) != ast.dump(slow[0]) or ast.dump(fast[1]) != ast.dump(slow[1]):
        return None
    if not (_plain(fast[0]) and _plain(fast[1])):
        return None
    if not _same_operands((x, y), (fast[0], fast[1])):
        return None
    return Tweak(native_branch=1 if equal else 0)


def match_call(node: ast.Call, is_copy: IsCopy = spelled_as_copy) -> bool:
    """The tweak as one call: ``torch._foreach_copy_(A, B, non_blocking=A[0].device == B[0].device)``."""
    if not is_copy(node.func) or len(node.args) not in (2, 3):
        return False
    flags = list(node.args[2:]) + [k.value for k in node.keywords if k.arg == "non_blocking"]
    if len(flags) != 1 or len(node.keywords) > (0 if len(node.args) == 3 else 1):
        return False
    test = same_device_test(flags[0])
    if test is None or not test[2] or not (_plain(node.args[0]) and _plain(node.args[1])):
        return False
    return _same_operands((test[0], test[1]), (node.args[0], node.args[1]))
