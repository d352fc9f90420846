"""Small syntactic patterns the analysis looks for, each a pure function of libcst nodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

import libcst as cst

FOREACH_COPY = "torch._foreach_copy_"

# An expression's code, for comparing two spellings of "the same" operand.
CodeOf = Callable[[cst.CSTNode], str]


@dataclass(frozen=True)
class SameDeviceCopy:
    """`if A[0].device == B[0].device: copy(A, B, non_blocking=True) else: copy(A, B)`."""

    node: cst.If
    native_call: cst.SimpleStatementLine  # the branch that already is the native call


def single_call(block: cst.BaseSuite) -> Optional[tuple[cst.SimpleStatementLine, cst.Call]]:
    """The call of a block made of exactly one call statement."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    line = block.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    expr = line.body[0]
    if isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call):
        return line, expr.value
    return None


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def copy_arguments(call: cst.Call, code: CodeOf) -> Optional[tuple[str, str, bool]]:
    """(dst, src, non_blocking) of a `_foreach_copy_` call, or None for other argument shapes."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if len(positional) + len(keywords) != len(call.args) or len(positional) < 2:
        return None
    non_blocking = False
    if len(positional) == 3:
        non_blocking = _is_true(positional[2].value)
        if not non_blocking:
            return None
    elif len(positional) > 3:
        return None
    if set(keywords) - {"non_blocking"}:
        return None
    if "non_blocking" in keywords:
        if len(positional) == 3 or not _is_true(keywords["non_blocking"]):
            return None
        non_blocking = True
    return code(positional[0].value), code(positional[1].value), non_blocking


def _device_of_first(node: cst.BaseExpression, code: CodeOf) -> Optional[str]:
    """`X[0].device` -> code of X."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "device"):
        return None
    value = node.value
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1):
        return None
    index = value.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0":
        return code(value.value)
    return None


def same_device_copy(
    node: cst.If, code: CodeOf, qualify: Callable[[cst.BaseExpression], Optional[str]]
) -> Optional[SameDeviceCopy]:
    """Match the NPU same-device special case around `torch._foreach_copy_` (either order, == or !=)."""
    test = node.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator = test.comparisons[0].operator
    if isinstance(operator, cst.Equal):
        same_device_first = True
    elif isinstance(operator, cst.NotEqual):
        same_device_first = False
    else:
        return None
    operands = {_device_of_first(test.left, code), _device_of_first(test.comparisons[0].comparator, code)}
    if None in operands:
        return None
    if not isinstance(node.orelse, cst.Else):
        return None
    branches = [single_call(node.body), single_call(node.orelse.body)]
    if branches[0] is None or branches[1] is None:
        return None
    parsed = []
    for _, call in branches:  # type: ignore[misc]
        if qualify(call.func) != FOREACH_COPY:
            return None
        arguments = copy_arguments(call, code)
        if arguments is None:
            return None
        parsed.append(arguments)
    (dst0, src0, fast0), (dst1, src1, fast1) = parsed
    if (dst0, src0) != (dst1, src1) or operands != {dst0, src0}:
        return None
    # The non-blocking copy must sit in the same-device branch.
    if (fast0, fast1) != ((True, False) if same_device_first else (False, True)):
        return None
    native_line = branches[1][0] if same_device_first else branches[0][0]
    return SameDeviceCopy(node=node, native_call=native_line)


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


def body_statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    return ()


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it."""
    yield node
    for child in node.children:
        yield from descendants(child)
