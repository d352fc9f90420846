"""Same-device copies, FSU005's candidates, read from the `ast` model (`semantic/model.py`), no libcst.

    if dst[0].device == src[0].device:
        torch._foreach_copy_(dst, src, non_blocking=True)
    else:
        torch._foreach_copy_(dst, src)

Each `if` of the model's tree (an `elif` is the `else` of the `if` above it: never one) that
`fingerprint/same_device.match_if` matches, whose two callees are `torch._foreach_copy_` through the file's
imports (a name the function around it, or a function around that, binds is a local, not the import), and
that holds no `#` but in the line the collapse keeps. Each stands where libcst places the `if` and the native
call (`NodeText`); the planner (`plan.py`, `plan_copies`) edits the libcst nodes standing there.

The `#` rule reads the text libcst's `If` spans, without generating it: from `if` to the end of the logical
line of the `else` branch's statement, with the comment lines libcst gives that branch's indented block (its
footer: up to the last line after it that starts with its indentation). The line the collapse keeps is the
native statement with the rest of its line (its own trailing comment too) in an indented block; in a one-line
suite (`else: copy(a, b)`) only the statement, which libcst puts on a line of its own without the suite's
comment, and only when a line break follows it. A `#` anywhere else refuses the `if` (inside a string
literal too, as before the move).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

from fsdp_unpatch.fingerprint.normalisation import local_names
from fsdp_unpatch.fingerprint.same_device import FOREACH_COPY, match_if
from fsdp_unpatch.semantic.names import ImportTable
from fsdp_unpatch.semantic.text import NodeText, dedent_lines

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")
# A line with no code: white space, maybe a comment, its end (or the end of the text).
_EMPTY_LINE = re.compile(r"[ \t\f]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|\Z)")
# What an attribute's name is written without (the `.` before it, white space, a line continuation).
_ATTRIBUTE = re.compile(r"[^ \t\f\r\n.\\]+\Z")


@dataclass(frozen=True)
class SameDeviceIf:
    """A matched `if`: where libcst places it and its native call statement ((line from 1, column from 0 in
    characters) of their first token, in the parsed text), which branch that is (0: the body, 1: the `else`),
    and the index of the top-level statement of the tree it is in."""

    node: ast.If = field(compare=False, repr=False)
    at: tuple[int, int]
    native_at: tuple[int, int]
    native_branch: int
    top: int


def find(tree: ast.Module, text: NodeText, table: ImportTable) -> list[SameDeviceIf]:
    """The same-device copies of a module's tree (`text`: the text it was parsed from), in source order."""
    found = []
    bound: dict[tuple[int, ...], set[str]] = {}  # names bound around each chain of enclosing functions
    for top, statement in enumerate(tree.body):
        for node, functions in _ifs([statement], ()):
            start = text.offset(node.lineno, node.col_offset)
            if text.text.startswith("elif", start):
                continue
            tweak = match_if(node, is_copy=lambda func: True)
            if tweak is None:
                continue
            key = tuple(id(f) for f in functions)
            if key not in bound:
                bound[key] = set().union(*(local_names(f) for f in functions))
            calls = [node.body[0].value, node.orelse[0].value]  # type: ignore[attr-defined]  # `match_if`
            if any(_qualified(call.func, text, table, bound[key]) != FOREACH_COPY for call in calls):
                continue
            native = node.body[0] if tweak.native_branch == 0 else node.orelse[0]
            if _comment_outside(node, native, text):
                continue
            at = text.start(node)
            native_at = text.start(native)
            found.append(SameDeviceIf(node, at, native_at, tweak.native_branch, top))
    return found


def _ifs(
    statements: list[ast.stmt], functions: tuple[FunctionNode, ...]
) -> Iterator[tuple[ast.If, tuple[FunctionNode, ...]]]:
    """Every `if` among `statements` and in their blocks, each before those inside it, with the functions
    around it (innermost last)."""
    for statement in statements:
        if isinstance(statement, ast.If):
            yield statement, functions
        inner = (*functions, statement) if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else functions
        for name in _BLOCKS:
            value = getattr(statement, name, None)
            if not value:
                continue
            if name in ("handlers", "cases"):
                for clause in value:
                    yield from _ifs(clause.body, inner)
            else:
                yield from _ifs(value, inner)


def _qualified(func: ast.expr, text: NodeText, table: ImportTable, local: set[str]) -> Optional[str]:
    """The qualified name a callee stands for, as written (the import table holds names as written); None
    for a name the functions around it bind."""
    name = _written(func, text)
    if name is None or name.partition(".")[0] in local:
        return None
    return table.qualify_dotted(name)


def _written(node: ast.expr, text: NodeText) -> Optional[str]:
    """`a.b.c` as spelled in the text (ast's identifiers are NFKC-normalized), for a name or attribute chain."""
    if isinstance(node, ast.Name):
        return text.written(node)
    if isinstance(node, ast.Attribute):
        head = _written(node.value, text)
        attribute = _ATTRIBUTE.search(text.written(node))
        return None if head is None or attribute is None else f"{head}.{attribute[0]}"
    return None


def _comment_outside(node: ast.If, native: ast.stmt, text: NodeText) -> bool:
    """Whether the text libcst's `If` spans holds a `#` outside the line the collapse keeps."""
    source = text.text
    start = text.offset(node.lineno, node.col_offset)
    last = node.orelse[0]
    end = _line_end(source, text.offset(last.end_lineno, last.end_col_offset))  # type: ignore[arg-type]
    if not _in_suite(source, text.offset(last.lineno, last.col_offset)):
        end = _footer_end(source, end, text.indentation(last.lineno))
    if source[start:end].rstrip().endswith("\\"):
        return True  # a line continuation ends it: the `if` alone does not parse (the planner parsed it alone)
    native_start = text.offset(native.lineno, native.col_offset)
    native_end = text.offset(native.end_lineno, native.end_col_offset)  # type: ignore[arg-type]
    if not _in_suite(source, native_start):
        native_end = _line_end(source, native_end)
        kept = source[native_start:native_end]
        if dedent_lines(kept, text.indentation(native.lineno), first=False) != kept:
            native_end = native_start  # libcst writes the line alone less indented than inside the `if`
    elif source[native_end : native_end + 1] not in ("\n", "\r"):
        native_end = native_start  # libcst's line of it is not in the text: nothing of it is kept out
    return "#" in source[start:native_start] or "#" in source[native_end:end]


def _in_suite(source: str, at: int) -> bool:
    """Whether the statement at `at` is a one-line suite's (`else: f()`): on the line of its clause's `:`."""
    at -= 1
    while at >= 0:
        if source[at] in " \t\f":
            at -= 1
        elif source[at] == "\n" and source[at - 1 : at] == "\\":
            at -= 2
        elif source[at] == "\n" and source[at - 2 : at] == "\\\r":
            at -= 3
        elif source[at] == "\r" and source[at - 1 : at] == "\\":
            at -= 2
        else:
            break
    return at >= 0 and source[at] == ":"


def _line_end(source: str, at: int) -> int:
    """The end of the logical line a statement ending at `at` is on: after `;`, line continuations, a comment
    and the line break."""
    while at < len(source):
        if source[at] in " \t\f;":
            at += 1
        elif source.startswith("\\\r\n", at):
            at += 3
        elif source.startswith(("\\\n", "\\\r"), at):
            at += 2
        else:
            break
    if source.startswith("#", at):
        while at < len(source) and source[at] not in "\r\n":
            at += 1
    if source.startswith("\r\n", at):
        return at + 2
    return at + 1 if source.startswith(("\r", "\n"), at) else at


def _footer_end(source: str, at: int, indentation: str) -> int:
    """The end of the lines libcst gives an indented block after its last statement (which ends at `at`): the
    lines with no code after it, up to the last of them that starts with the block's indentation."""
    end = at
    while at < len(source):
        line = _EMPTY_LINE.match(source, at)
        if line is None or line.end() == at:
            break
        if line[0].startswith(indentation):
            end = line.end()
        at = line.end()
    return end
