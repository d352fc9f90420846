"""Is a function a copy of an upstream FSDP2 function plus known NPU tweaks?

The question the analysis asks before it removes a replacement function: after normalisation
(docstrings, comments, annotations, ``torch.library.impl`` decorators, the function's own name and the
names of its locals do not matter; the known NPU tweaks are folded back into the upstream form), is the
candidate statement-for-statement the upstream function of some torch release?

Upstream statements are stored as hashes in ``data/fingerprints.json`` (written by
``scripts/gen_fingerprints.py`` from the torch sources of every release); the installed torch, when it
is newer than all of them, is fingerprinted from its ``.py`` files at run time. torch is never imported.

Stdlib only (``ast`` + ``difflib``), Python >= 3.9.
"""
from __future__ import annotations

import ast
import copy
import difflib
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence, Union

__all__ = [
    "Difference",
    "Evidence",
    "FunctionPrint",
    "compare_to_upstream",
    "known_targets",
    "fingerprint_function",
    "extract_target_source",
    "module_root",
    "serialize",
    "stmt_hash",
    "TWEAK_SAME_DEVICE_COPY",
    "TWEAK_NPU_STREAM",
]

DATA_PATH = Path(__file__).parent / "data" / "fingerprints.json"
FORMAT = 1

# FSDP2 package directories below a site-packages (or wheel) root, newest layout first.
FSDP2_ROOTS = ("torch/distributed/fsdp/_fully_shard", "torch/distributed/_composable/fsdp")

TWEAK_SAME_DEVICE_COPY = "same-device non_blocking foreach copy"
TWEAK_NPU_STREAM = "hard-coded NPU current stream"

# Streams that all mean "the current stream of the device FSDP2 runs on".
_DEVICE_STREAM_OWNERS = {
    "torch.cuda": None,
    "torch.accelerator": None,
    "device_handle": None,          # a local / parameter of the collectives functions
    "torch.npu": TWEAK_NPU_STREAM,
    "torch_npu.npu": TWEAK_NPU_STREAM,
}
_CANON_STREAM_OWNER = "__fsdp_device__"
# Locals are renamed to "%v0", "%v1", ...: "v<N>" behind a marker no identifier can contain, so that a
# global that happens to be called ``v0`` never collides with a renamed local.
_LOCAL_MARK = "%v"


# ---------------------------------------------------------------------------------------------
# Public result types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    line: int  # 1-based line in the given function source; 0 when the statement is missing from it
    text: str  # one-line summary of the differing (or missing upstream) statement


@dataclass(frozen=True)
class Evidence:
    matched: bool
    torch_version: str | None
    tweaks: tuple[str, ...]
    differences: tuple[Difference, ...]
    calls_original: bool
    # Every known torch version whose upstream function the candidate equals (empty when not matched).
    matched_versions: tuple[str, ...] = ()


@dataclass(frozen=True)
class FunctionPrint:
    """The normalised statements of one function.

    Item 0 of every list is the header (parameters and decorators); items 1.. are the top-level
    statements of the body. ``hashes`` are of the alpha-renamed statements; ``shapes`` are of the same
    statements with every local replaced by one placeholder, and ``slots`` list the local numbers in
    the order the placeholders occur, so that an inserted statement that binds a new local does not
    make every later statement differ when the differences are located.
    """

    hashes: tuple[str, ...]
    shapes: tuple[str, ...]
    slots: tuple[tuple[int, ...], ...]
    summaries: tuple[str, ...]
    lines: tuple[int, ...]
    params: int
    tweaks: tuple[str, ...]
    calls: frozenset[str]  # dotted names of everything the original (un-normalised) function calls


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _summary(text: str, limit: int = 80) -> str:
    line = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def parse_function(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """Parse the text of one ``def`` (indented or decorated) and return its node."""
    tree = ast.parse(textwrap.dedent(source))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    raise ValueError("no function definition in the given source")


# ---------------------------------------------------------------------------------------------
# Normalisation steps. Each takes and returns a function node (mutated in place) and is idempotent.
# ---------------------------------------------------------------------------------------------


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _fix_empty_bodies(node: ast.AST) -> None:
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and not value and field == "body":
            value.append(ast.Pass())


def strip_docstrings(fn: ast.AST) -> ast.AST:
    """Drop the docstring of the function and of every function or class nested in it."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.body and _is_docstring(node.body[0]):
                del node.body[0]
                _fix_empty_bodies(node)
    return fn


class _AnnotationStripper(ast.NodeTransformer):
    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return None  # a bare declaration does nothing at run time
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and not value and field == "body" and isinstance(node, ast.stmt):
                value.append(ast.Pass())
        return node


def strip_annotations(fn: ast.AST) -> ast.AST:
    """Drop parameter and return annotations; ``x: T = v`` becomes ``x = v``; ``x: T`` goes."""
    return _AnnotationStripper().visit(fn)


def _is_library_impl(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = dotted_name(func) or ""
    return name == "library.impl" or name.endswith(".library.impl")


def strip_library_impl_decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef):
    """Drop ``@torch.library.impl(...)`` registrations (the dispatch keys are not the body).

    Other decorators stay: ``@torch.no_grad()`` changes what the function does.
    """
    fn.decorator_list = [d for d in fn.decorator_list if not _is_library_impl(d)]
    return fn


def strip_name(fn: ast.FunctionDef | ast.AsyncFunctionDef):
    """The function's own name does not matter (``_patched_x`` replaces ``x``)."""
    fn.name = "_"
    return fn


# -- NPU tweak (a): same-device non_blocking foreach copy ----------------------------------------


def _foreach_copy_args(stmt: ast.stmt) -> tuple[ast.expr, ast.expr, bool] | None:
    """(dst, src, non_blocking) for ``torch._foreach_copy_(dst, src[, nb])`` as a statement."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if dotted_name(call.func) != "torch._foreach_copy_" or len(call.args) not in (2, 3):
        return None
    nb_nodes = call.args[2:]
    for kw in call.keywords:
        if kw.arg != "non_blocking":
            return None
        nb_nodes.append(kw.value)
    if len(nb_nodes) > 1:
        return None
    if not nb_nodes:
        return call.args[0], call.args[1], False
    nb = nb_nodes[0]
    if not (isinstance(nb, ast.Constant) and isinstance(nb.value, bool)):
        return None
    return call.args[0], call.args[1], nb.value


def _first_device(node: ast.expr) -> ast.expr | None:
    """X for ``X[0].device``."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "device"
        and isinstance(node.value, ast.Subscript)
    ):
        index = node.value.slice
        if isinstance(index, ast.Constant) and index.value == 0:
            return node.value.value
    return None


def _same_device_test(test: ast.expr) -> tuple[ast.expr, ast.expr, bool] | None:
    """(X, Y, equal) for ``X[0].device == Y[0].device`` (``!=`` / ``not (==)`` give equal=False)."""
    negate = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negate, test = True, test.operand
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op = test.ops[0]
    if not isinstance(op, (ast.Eq, ast.NotEq)):
        return None
    left, right = _first_device(test.left), _first_device(test.comparators[0])
    if left is None or right is None:
        return None
    return left, right, isinstance(op, ast.Eq) != negate


class _SameDeviceCopyFolder(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        test = _same_device_test(node.test)
        if test is None or len(node.body) != 1 or len(node.orelse) != 1:
            return node
        x, y, equal = test
        same_branch, other_branch = (node.body[0], node.orelse[0]) if equal else (node.orelse[0], node.body[0])
        fast, slow = _foreach_copy_args(same_branch), _foreach_copy_args(other_branch)
        if fast is None or slow is None or not fast[2] or slow[2]:
            return node
        key = serialize
        if (key(fast[0]), key(fast[1])) != (key(slow[0]), key(slow[1])):
            return node
        if sorted((key(x), key(y))) != sorted((key(fast[0]), key(fast[1]))):
            return node
        self.count += 1
        call = ast.Call(
            func=ast.Attribute(value=ast.Name(id="torch", ctx=ast.Load()), attr="_foreach_copy_", ctx=ast.Load()),
            args=[slow[0], slow[1]],
            keywords=[],
        )
        return ast.copy_location(ast.Expr(value=call), node)


def fold_same_device_copy(fn: ast.AST) -> tuple[ast.AST, int]:
    """NPU tweak (a): fold the same-device ``non_blocking=True`` foreach copy into the upstream call.

    ``if A[0].device == B[0].device: torch._foreach_copy_(A, B, non_blocking=True)
    else: torch._foreach_copy_(A, B)`` -- also with ``!=`` / ``not (...)`` and swapped branches, the
    compared operands in either order, ``non_blocking=True`` by keyword or third positional --
    becomes ``torch._foreach_copy_(A, B)``. Returns the node and the number of folds.
    """
    folder = _SameDeviceCopyFolder()
    fn = folder.visit(fn)
    return fn, folder.count


# -- NPU tweak (b): hard-coded NPU current stream -----------------------------------------------


class _StreamCanon(ast.NodeTransformer):
    def __init__(self, self_name: str | None) -> None:
        self.self_name = self_name
        self.tweaks: set[str] = set()

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if node.args or node.keywords or not isinstance(node.func, ast.Attribute):
            return node
        if node.func.attr != "current_stream":
            return node
        owner = dotted_name(node.func.value)
        if owner is None:
            return node
        if owner in _DEVICE_STREAM_OWNERS:
            tweak = _DEVICE_STREAM_OWNERS[owner]
        elif self.self_name and owner == f"{self.self_name}.device_handle":
            tweak = None
        else:
            return node
        if tweak:
            self.tweaks.add(tweak)
        owner_node = ast.Name(id=_CANON_STREAM_OWNER, ctx=ast.Load())
        func = ast.Attribute(value=owner_node, attr="current_stream", ctx=ast.Load())
        return ast.copy_location(ast.Call(func=func, args=[], keywords=[]), node)


def canonicalise_current_stream(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[ast.AST, set[str]]:
    """NPU tweak (b): every spelling of "the device's current stream" becomes one form.

    ``torch.npu.current_stream()`` / ``torch_npu.npu.current_stream()`` (NPU copies),
    ``torch.cuda.current_stream()`` (old upstream), ``self.device_handle.current_stream()`` and
    ``device_handle.current_stream()`` (upstream >= 2.6), ``torch.accelerator.current_stream()``
    (upstream >= 2.7). Returns the node and the tweaks seen (the NPU spellings).
    """
    args = fn.args.posonlyargs + fn.args.args
    canon = _StreamCanon(args[0].arg if args else None)
    fn = canon.visit(fn)
    return fn, canon.tweaks


# -- alpha-renaming -------------------------------------------------------------------------------


def _ordered_nodes(node: ast.AST):
    """Depth-first, fields in ``_fields`` order: a stable 'order of appearance'."""
    yield node
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.AST):
            yield from _ordered_nodes(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    yield from _ordered_nodes(item)


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names bound inside the function (params, assignments, loop/with/except targets, nested
    defs and their params, comprehension variables), less ``global`` names. Imports are module
    references and keep their names."""
    bound: set[str] = set()
    declared_global: set[str] = set()
    for node in _ordered_nodes(fn.args):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
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
                bound.add(node.name)
    return bound - declared_global


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = mapping

    def _new(self, name):
        return self.mapping.get(name, name) if name else name

    def visit_Name(self, node):
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self._new(node.arg)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node):
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_ExceptHandler(self, node):
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    def visit_Nonlocal(self, node):
        node.names = [self._new(n) for n in node.names]
        return node

    def generic_visit(self, node):
        if type(node).__name__ in ("MatchAs", "MatchStar"):
            node.name = self._new(getattr(node, "name", None))
        return super().generic_visit(node)


def alpha_rename(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Rename parameters and locals to v0, v1, ... in order of first appearance (parameters first,
    then the body in source order). Globals, modules and attributes keep their names. Decorators and
    default values are evaluated outside the function and are not renamed. Returns the mapping."""
    bound = local_names(fn)
    mapping: dict[str, str] = {}

    def see(name: str | None) -> None:
        if name and name in bound and name not in mapping:
            mapping[name] = f"{_LOCAL_MARK}{len(mapping)}"

    roots: list[ast.AST] = [a for a in _all_args(fn.args)] + list(fn.body)
    for root in roots:
        for node in _ordered_nodes(root):
            if isinstance(node, ast.Name):
                see(node.id)
            elif isinstance(node, ast.arg):
                see(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)):
                see(node.name)
            elif type(node).__name__ in ("MatchAs", "MatchStar"):
                see(getattr(node, "name", None))
    renamer = _Renamer(mapping)
    for arg in _all_args(fn.args):
        arg.arg = mapping.get(arg.arg, arg.arg)
    fn.body = [renamer.visit(stmt) for stmt in fn.body]
    return mapping


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = list(args.posonlyargs) + list(args.args)
    if args.vararg:
        out.append(args.vararg)
    out += list(args.kwonlyargs)
    if args.kwarg:
        out.append(args.kwarg)
    return out


# ---------------------------------------------------------------------------------------------
# Stable serialiser (not ast.dump: its output changes between Python versions)
# ---------------------------------------------------------------------------------------------


def serialize(node: object, slots: list[int] | None = None) -> str:
    """A stable text form of an AST: the node class, then its non-empty ``_fields`` by name.

    Position attributes are not fields; ``None`` and empty lists are skipped, so fields that newer
    Pythons add with empty defaults (``type_params``, ``type_comment``, ``kind``) leave no trace.
    When ``slots`` is a list, renamed locals are written as one placeholder and their numbers are
    appended to ``slots`` (the 'shape' of a statement).
    """
    out: list[str] = []
    _ser(node, out, slots)
    return "".join(out)


def _ser(node: object, out: list[str], slots: list[int] | None) -> None:
    if isinstance(node, ast.AST):
        out.append(type(node).__name__)
        out.append("(")
        for field in node._fields:
            value = getattr(node, field, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            out.append(field)
            out.append("=")
            _ser(value, out, slots)
            out.append(",")
        out.append(")")
    elif isinstance(node, list):
        out.append("[")
        for item in node:
            _ser(item, out, slots)
            out.append(",")
        out.append("]")
    elif node is None:
        out.append("None")
    elif isinstance(node, str):
        if slots is not None and node.startswith(_LOCAL_MARK):
            slots.append(int(node[len(_LOCAL_MARK):]))
            out.append("%v")
        else:
            out.append(repr(node))
    elif isinstance(node, (bool, int, float, complex, bytes)) or node is Ellipsis:
        out.append(f"{type(node).__name__}:{node!r}")
    else:  # pragma: no cover - no other constant types in an AST
        out.append(f"{type(node).__name__}:{node!r}")


def stmt_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# Fingerprinting one function
# ---------------------------------------------------------------------------------------------


def _header_node(fn) -> ast.AST:
    """What the header statement compares: parameters (with defaults) and the kept decorators."""
    return ast.Tuple(elts=[fn.args, ast.List(elts=list(fn.decorator_list), ctx=ast.Load())], ctx=ast.Load())


def _header_summary(fn, source: str) -> str:
    decorators = " ".join("@" + _summary(ast.get_source_segment(source, d) or "") for d in fn.decorator_list)
    args = copy.deepcopy(fn.args)
    for a in _all_args(args):
        a.annotation = None
    text = f"def {fn.name}({ast.unparse(args)})"
    return _summary(f"{decorators} {text}" if decorators else text)


def _calls(fn) -> frozenset[str]:
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            name = dotted_name(node.func)
            if name:
                names.add(name)
    return frozenset(names)


def fingerprint_function(source: str) -> FunctionPrint:
    """Normalise one function and fingerprint its header and top-level statements."""
    source = textwrap.dedent(source)
    original = parse_function(source)
    calls = _calls(original)
    lines = [min([original.lineno] + [d.lineno for d in original.decorator_list])]
    summaries = [_header_summary(original, source)]

    fn = copy.deepcopy(original)
    # Pair each normalised top-level statement with its original by position: the steps that
    # replace a statement copy its location.
    by_position = {(s.lineno, s.col_offset): s for s in original.body}
    strip_docstrings(fn)
    strip_library_impl_decorators(fn)
    strip_name(fn)
    fn, n_folds = fold_same_device_copy(fn)
    fn, stream_tweaks = canonicalise_current_stream(fn)
    strip_annotations(fn)
    originals = [by_position.get((s.lineno, s.col_offset), s) for s in fn.body]
    alpha_rename(fn)

    tweaks = ([TWEAK_SAME_DEVICE_COPY] if n_folds else []) + sorted(stream_tweaks)
    hashes, shapes, slots = [], [], []
    for i, node in enumerate([_header_node(fn)] + list(fn.body)):
        hashes.append(stmt_hash(serialize(node)))
        s: list[int] = []
        shapes.append(stmt_hash(serialize(node, s)))
        slots.append(tuple(s))
        if i:
            old = originals[i - 1]
            summaries.append(_summary(ast.get_source_segment(source, old) or ast.unparse(old)))
            lines.append(old.lineno)
    return FunctionPrint(
        hashes=tuple(hashes),
        shapes=tuple(shapes),
        slots=tuple(slots),
        summaries=tuple(summaries),
        lines=tuple(lines),
        params=len(_all_args(original.args)),
        tweaks=tuple(tweaks),
        calls=calls,
    )


# ---------------------------------------------------------------------------------------------
# Finding a target in the torch sources
# ---------------------------------------------------------------------------------------------


def module_root(torch_parent: str | os.PathLike) -> Path | None:
    """The FSDP2 package directory below a directory that contains ``torch/``."""
    base = Path(torch_parent)
    for rel in FSDP2_ROOTS:
        if (base / rel / "_fsdp_collectives.py").is_file():
            return base / rel
    return None


def _segment(source: str, node: ast.AST) -> str:
    lines = source.splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "".join(lines[start - 1 : node.end_lineno])


def _op_kernel(tree: ast.Module, op: str) -> ast.FunctionDef | None:
    """The python kernel registered with ``torch.library.impl(lib, op, key)`` for a non-Meta key."""
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and _is_library_impl(d) and len(d.args) >= 3:
                name, key = d.args[1], d.args[2]
                if (
                    isinstance(name, ast.Constant) and name.value == op
                    and isinstance(key, ast.Constant) and key.value != "Meta"
                ):
                    return node
    return None


def _class_method(tree: ast.Module, cls: str, method: str, _seen=None) -> ast.FunctionDef | None:
    """A method of a class of this module, looking through bases defined in the same module."""
    seen = _seen or set()
    if cls in seen:
        return None
    seen.add(cls)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                    return item
            for base in node.bases:
                name = dotted_name(base)
                if name:
                    found = _class_method(tree, name.split(".")[-1], method, seen)
                    if found is not None:
                        return found
    return None


def extract_target_source(root: str | os.PathLike, target: str) -> str | None:
    """The source text of ``target`` in the FSDP2 package directory ``root``, or None.

    Target ids: ``ops.<ns>.<op>`` (the python kernel for the non-Meta dispatch keys),
    ``<module>.<function>`` or ``<module>.<Class>.<method>`` (modules of the FSDP2 package).
    """
    root = Path(root)
    parts = target.split(".")
    if parts[0] == "ops":
        if len(parts) < 3:
            return None
        op = parts[2]
        for path in sorted(root.glob("*.py")):
            source = path.read_text(encoding="utf-8")
            if op not in source:
                continue
            node = _op_kernel(ast.parse(source), op)
            if node is not None:
                return _segment(source, node)
        return None
    path = root / f"{parts[0]}.py"
    if len(parts) not in (2, 3) or not path.is_file():
        return None
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    if len(parts) == 2:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == parts[1]:
                return _segment(source, node)
        return None
    node = _class_method(tree, parts[1], parts[2])
    return _segment(source, node) if node is not None else None


def short_name(target: str) -> str:
    """The name a replacement would call to reach the original: the last part of the id."""
    parts = target.split(".")
    return parts[-1] if parts[-1] != "default" else parts[-2]


# ---------------------------------------------------------------------------------------------
# Upstream data
# ---------------------------------------------------------------------------------------------

_VersionPrints = Mapping[str, Mapping[str, FunctionPrint]]  # target -> version -> print


def version_key(version: str) -> tuple[int, ...]:
    out = []
    for part in version.split("+")[0].split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def _print_from_json(entry: Mapping) -> FunctionPrint:
    n = len(entry["hashes"])
    return FunctionPrint(
        hashes=tuple(entry["hashes"]),
        shapes=tuple(entry.get("shapes", entry["hashes"])),
        slots=tuple(tuple(s) for s in entry.get("slots", [()] * n)),
        summaries=tuple(entry["summaries"]),
        lines=(0,) * n,
        params=entry["params"],
        tweaks=(),
        calls=frozenset(),
    )


def print_to_json(fp: FunctionPrint) -> dict:
    return {
        "hashes": list(fp.hashes),
        "shapes": list(fp.shapes),
        "slots": [list(s) for s in fp.slots],
        "summaries": list(fp.summaries),
        "params": fp.params,
    }


@functools.lru_cache(maxsize=None)
def _load_json(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: unsupported fingerprint format {data.get('format')!r}")
    return data


def _installed_torch() -> tuple[str, Path] | None:
    """(version, FSDP2 package dir) of the installed torch, found without importing it."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        version = importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None
    root = module_root(Path(list(spec.submodule_search_locations)[0]).parent)
    return (version, root) if root is not None else None


def fingerprint_dir(root: Path, targets: Iterable[str]) -> dict[str, FunctionPrint]:
    out = {}
    for target in targets:
        source = extract_target_source(root, target)
        if source is not None:
            out[target] = fingerprint_function(source)
    return out


@functools.lru_cache(maxsize=None)
def _default_prints(path: str = str(DATA_PATH)) -> dict[str, dict[str, FunctionPrint]]:
    data = _load_json(path)
    prints: dict[str, dict[str, FunctionPrint]] = {
        target: {v: _print_from_json(e) for v, e in versions.items()}
        for target, versions in data["targets"].items()
    }
    installed = _installed_torch()
    if installed is not None:
        version, root = installed
        known = [v for versions in prints.values() for v in versions]
        if not known or all(version_key(version) > version_key(v) for v in known):
            for target, fp in fingerprint_dir(root, prints.keys()).items():
                prints[target][version] = fp
    return prints


def _dir_version(path: Path) -> str:
    info = path / "SOURCE.json"
    if info.is_file():
        try:
            return json.loads(info.read_text(encoding="utf-8"))["version"]
        except (ValueError, KeyError):
            pass
    return path.name


def upstream_version_dirs(dirs: Iterable[str | os.PathLike]) -> dict[str, Path]:
    """version -> FSDP2 package dir, for directories that contain ``torch/`` (named by version) or
    whose subdirectories do (e.g. ``/work/torch_upstream``)."""
    out: dict[str, Path] = {}
    for d in dirs:
        d = Path(d)
        root = module_root(d)
        if root is not None:
            out[_dir_version(d)] = root
            continue
        if d.is_dir():
            for sub in sorted(d.iterdir()):
                root = module_root(sub)
                if root is not None:
                    out[_dir_version(sub)] = root
    return out


def _prints_for(target: str, upstream_dirs) -> dict[str, FunctionPrint]:
    if upstream_dirs is None:
        return dict(_default_prints().get(target, {}))
    if isinstance(upstream_dirs, (str, os.PathLike)):
        upstream_dirs = [upstream_dirs]
    out = {}
    for version, root in upstream_version_dirs(upstream_dirs).items():
        source = extract_target_source(root, target)
        if source is not None:
            out[version] = fingerprint_function(source)
    return out


def known_targets() -> frozenset[str]:
    """The target ids with upstream fingerprints."""
    return frozenset(_default_prints())


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------


def _diff(cand: FunctionPrint, up: FunctionPrint) -> list[Difference]:
    """Candidate statements not in upstream, and upstream statements missing from the candidate.

    Statements are aligned on their shapes; an aligned pair counts as equal only if its locals map
    consistently (one candidate local <-> one upstream local) with the pairs before it.
    """
    matcher = difflib.SequenceMatcher(None, cand.shapes, up.shapes, autojunk=False)
    fwd: dict[int, int] = {}
    rev: dict[int, int] = {}
    extra: list[int] = []
    missing: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                f2, r2 = dict(fwd), dict(rev)
                ok = len(cand.slots[i]) == len(up.slots[j])
                for c, u in zip(cand.slots[i], up.slots[j]):
                    if f2.setdefault(c, u) != u or r2.setdefault(u, c) != c:
                        ok = False
                        break
                if ok:
                    fwd, rev = f2, r2
                else:
                    extra.append(i)
                    missing.append(j)
        else:
            extra.extend(range(i1, i2))
            missing.extend(range(j1, j2))
    out = [Difference(cand.lines[i], cand.summaries[i]) for i in extra]
    out += [Difference(0, up.summaries[j]) for j in missing]
    return out


def _calls_original(fp: FunctionPrint, target: str, original_names: frozenset[str]) -> bool:
    wanted = {short_name(target)} | set(original_names)
    for call in fp.calls:
        parts = call.split(".")
        if call in wanted or parts[-1] in wanted:
            return True
        if len(parts) >= 2 and parts[-1] == "default" and parts[-2] in wanted:
            return True
    return False


PathLike = Union[str, "os.PathLike[str]"]


def compare_to_upstream(
    function_source: str,
    target: str,
    *,
    original_names: frozenset[str] = frozenset(),
    upstream_dirs: PathLike | Sequence[PathLike] | None = None,
) -> Evidence:
    """Compare one replacement function with the upstream ``target`` of every known torch version.

    ``upstream_dirs``: None reads ``data/fingerprints.json`` (plus the installed torch when it is
    newer than every version there); otherwise directories holding ``torch/...`` sources (one per
    version, named by version or carrying a ``SOURCE.json``) or parents of such directories.

    When matched, ``torch_version`` is the newest matching version and ``matched_versions`` lists
    them all; otherwise it is the version with the fewest differences (the newest on a tie).
    """
    cand = fingerprint_function(function_source)
    calls_original = _calls_original(cand, target, frozenset(original_names))
    prints = _prints_for(target, upstream_dirs)
    if not prints:
        return Evidence(False, None, cand.tweaks, (), calls_original)
    versions = sorted(prints, key=version_key)
    matched = tuple(v for v in versions if prints[v].hashes == cand.hashes)
    if matched:
        return Evidence(True, matched[-1], cand.tweaks, (), calls_original, matched)
    best_version, best_diff = None, None
    for v in versions:  # oldest first; ties go to the newest
        diff = _diff(cand, prints[v])
        if not diff:  # shapes and local mapping agree but the numbering differs: locate by hash
            diff = _hash_diff(cand, prints[v])
        if best_diff is None or len(diff) <= len(best_diff):
            best_version, best_diff = v, diff
    return Evidence(False, best_version, cand.tweaks, tuple(best_diff or ()), calls_original)


def _hash_diff(cand: FunctionPrint, up: FunctionPrint) -> list[Difference]:
    matcher = difflib.SequenceMatcher(None, cand.hashes, up.hashes, autojunk=False)
    out = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out += [Difference(cand.lines[i], cand.summaries[i]) for i in range(i1, i2)]
            out += [Difference(0, up.summaries[j]) for j in range(j1, j2)]
    return out
