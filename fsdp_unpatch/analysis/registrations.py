"""Facts of a file's `torch.library` calls: the ops it defines and the kernels it registers.

Read by the rules that report kernel registrations (FSU103 `kernel_registration.py`) and vendored copies of
FSDP2's ops (`vendored_fsdp2.py`), and by the planner (a function a decorator registers stays,
`FileAnalysis.registered_by_decorator`): facts, not
decisions, so below the rules. Read from the `ast` model of the parsed text (`semantic/model.py`: its tree,
its import table, its `name = call(...)` bindings and call decorators), no libcst: each call stands where
libcst places it (`planned.Located`) and is quoted as libcst's `code_for_node` gives it (`semantic/text.py`,
`NodeText`). A file the model cannot be built for (syntax newer than the running Python's) has none.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, AbstractSet, Optional

from fsdp_unpatch.analysis.planned import Located
from fsdp_unpatch.semantic.imports import dotted
from fsdp_unpatch.semantic.text import NodeText

if TYPE_CHECKING:
    from fsdp_unpatch.semantic.model import Function, SemanticModel

LIBRARY = "torch.library.Library"
LIBRARY_IMPL = ("torch.library.impl", "torch.library.register_kernel")
LIBRARY_DEFINE = ("torch.library.define", "torch.library.custom_op")
# Last names of callees that may register a kernel or patch something in a test (`collect.py` records those
# calls for the planner, `plan.registration_code`; FSU202 reads its patchers from the model, `test_patch.py`); of
# them, those a `torch.library` call can have (`LIBRARY_DEFINE`, `LIBRARY_IMPL`, `lib.define`, `lib.impl`), the
# only ones read here.
LIBRARY_CALLEES = frozenset({"impl", "register_kernel", "define", "custom_op"})
REGISTRATION_CALLEES = LIBRARY_CALLEES | {"patch", "object", "setattr", "setitem", "dict"}


@dataclass(frozen=True)
class LibraryCall:
    """A `torch.library` call: where libcst places it, and its source as libcst gives it."""

    node: ast.Call = field(compare=False, repr=False)
    at: Located
    code: str


@dataclass(frozen=True)
class KernelRegistration:
    call: LibraryCall
    namespace: str
    op: str
    keys: tuple[str, ...]
    function: Optional[ast.expr]  # the kernel, when the call names it
    decorates: Optional[Function]  # the function the call decorates (`@torch.library.impl(...)`), if any

    @property
    def kernel(self) -> Optional[str]:
        """The kernel's name: the plain name the call passes, else the function it decorates."""
        if isinstance(self.function, (ast.Name, ast.Constant)):
            name = dotted(self.function)  # `None`, `True` and `False` are names to libcst
            if name is not None:
                return name
        return self.decorates.name if self.decorates is not None else None


@dataclass(frozen=True)
class LibraryFacts:
    # Ops the file defines itself, (namespace, op) -> the first defining call.
    defined_ops: dict[tuple[str, str], LibraryCall]
    kernel_registrations: list[KernelRegistration]


NO_FACTS = LibraryFacts({}, [])


def literal(node: Optional[ast.expr]) -> Optional[str]:
    """The value of a string literal (literals written side by side too; an f-string is none)."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def literals(node: Optional[ast.expr]) -> Optional[tuple[str, ...]]:
    """A string literal or a list/tuple of them."""
    single = literal(node)
    if single is not None:
        return (single,)
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [literal(e) for e in node.elts]
        if all(v is not None for v in values):
            return tuple(values)  # type: ignore[arg-type]
    return None


def positional(call: ast.Call) -> list[ast.expr]:
    return [a for a in call.args if not isinstance(a, ast.Starred)]


def keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((k.value for k in call.keywords if k.arg == name), None)


def calls_named(tree: ast.Module, last_names: AbstractSet[str]) -> list[tuple[ast.Call, ast.stmt]]:
    """The calls whose callee's last name is one of `last_names`, each with the innermost statement it is in, in
    libcst's visiting order (by where they start, an outer call before the one it calls)."""
    found = []
    stack: list[tuple[ast.AST, Optional[ast.stmt]]] = [(tree, None)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.Call) and statement is not None:
            func = node.func
            last = (
                func.attr if isinstance(func, ast.Attribute) else dotted(func) if isinstance(func, ast.Name) else None
            )
            if last in last_names:
                found.append((node, statement))
        for child in ast.iter_child_nodes(node):
            stack.append((child, child if isinstance(child, ast.stmt) else statement))
    return sorted(found, key=lambda c: (c[0].lineno, c[0].col_offset, -c[0].end_lineno, -c[0].end_col_offset))  # type: ignore[operator]


def library_facts(model: Optional[SemanticModel], text: str) -> LibraryFacts:
    """The `torch.library` facts of the file `model` was built from (`text`); none without a model."""
    if model is None or model.tree is None:
        return NO_FACTS
    return _Reader(model, text).read()


class _Reader:
    def __init__(self, model: SemanticModel, text: str) -> None:
        self.model = model
        self.text = NodeText(text)
        self.decorated = {id(call): model.functions[index] for call, index in model.decorated}

    def qualify(self, node: ast.AST) -> Optional[str]:
        name = dotted(node)
        return None if name is None else self.model.table.qualify_dotted(name)

    def read(self) -> LibraryFacts:
        defined: dict[tuple[str, str], LibraryCall] = {}
        kernels: list[KernelRegistration] = []
        for call, statement in self.calls():
            definition = self.definition(call)
            registration = None if definition is not None else self.registration(call)
            if definition is None and registration is None:
                continue
            found = self.library_call(call, statement)
            if definition is not None:
                defined.setdefault(definition, found)
            if registration is not None:
                namespace, op, keys, function = registration
                kernels.append(KernelRegistration(found, namespace, op, keys, function, self.decorated.get(id(call))))
        return LibraryFacts(defined, kernels)

    def calls(self) -> list[tuple[ast.Call, ast.stmt]]:
        assert self.model.tree is not None
        return calls_named(self.model.tree, LIBRARY_CALLEES)

    def library_call(self, call: ast.Call, statement: ast.stmt) -> LibraryCall:
        line, column = self.text.start(call)
        end = Located(line, column, call.end_lineno, self.text.column(call.end_lineno, call.end_col_offset))  # type: ignore[arg-type]
        first = self.text.lines[statement.lineno - 1]
        return LibraryCall(call, end, self.text.code(call, first[: len(first) - len(first.lstrip(" \t"))]))

    def _bound(self, node: ast.expr, inline: bool) -> Optional[ast.Call]:
        """The `Library(...)` call `node` names (`lib` bound by `lib = Library(...)`, or that call inline)."""
        call = node if inline and isinstance(node, ast.Call) else None
        if call is None and isinstance(node, ast.Name):
            call = self.model.call_bindings.get(node.id)
        return call if call is not None and self.qualify(call.func) == LIBRARY else None

    def _library_definitions(self, node: ast.expr) -> Optional[str]:
        """ "fsdp" for `lib` bound by `Library("fsdp", "DEF")` or `"FRAGMENT"`: a library that may define ops."""
        call = self._bound(node, inline=False)
        if call is None:
            return None
        args = positional(call)
        kind = literal(args[1]) if len(args) > 1 else literal(keyword(call, "kind"))
        return literal(args[0]) if args and kind in ("DEF", "FRAGMENT") else None

    def _library_namespace(self, node: ast.expr) -> Optional[str]:
        """ "fsdp" for `lib` bound by `lib = torch.library.Library("fsdp", "IMPL")` (or that call inline)."""
        call = self._bound(node, inline=True)
        if call is None:
            return None
        args = positional(call)
        return literal(args[0]) if args else None

    def definition(self, call: ast.Call) -> Optional[tuple[str, str]]:
        """(namespace, op) the call defines: `lib.define("op(...) -> ...")` on a `Library(ns, "DEF" |
        "FRAGMENT")`, `torch.library.define("ns::op", ...)`, `@torch.library.custom_op("ns::op")`."""
        args = positional(call)
        schema = literal(args[0]) if args else None
        if schema is None:
            return None
        if self.qualify(call.func) in LIBRARY_DEFINE:
            return _split_op(schema, None)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "define":
            namespace = self._library_definitions(call.func.value)
            return _split_op(schema.split("(")[0].strip(), namespace) if namespace else None
        return None

    def registration(self, call: ast.Call) -> Optional[tuple[str, str, tuple[str, ...], Optional[ast.expr]]]:
        """(namespace, op, dispatch keys, kernel) of a kernel the call registers."""
        args = positional(call)
        if self.qualify(call.func) in LIBRARY_IMPL and args:
            # impl(lib, "op", "Key"[, fn]) or impl("ns::op", "Key" | [...][, fn]); register_kernel("ns::op", keys, fn)
            namespace = self._library_namespace(args[0])
            if namespace is not None and len(args) >= 3:
                name, keys, function = literal(args[1]), literals(args[2]), args[3] if len(args) > 3 else None
            else:
                name = literal(args[0])
                keys = literals(args[1]) if len(args) > 1 else literals(keyword(call, "types"))
                function = args[2] if len(args) > 2 else keyword(call, "func")
            split = _split_op(name, namespace) if name else None
            return None if split is None else (split[0], split[1], keys or (), function)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "impl" and len(args) >= 2:
            # lib.impl("op", fn, "Key") on a Library object
            namespace = self._library_namespace(call.func.value)
            name = literal(args[0])
            if namespace is None or name is None:
                return None
            key = args[2] if len(args) > 2 else keyword(call, "dispatch_key")
            split = _split_op(name, namespace)
            if split is None:
                return None
            # a key that is not a literal (a variable) is unknown: reported as "a dispatch key"
            return split[0], split[1], (literals(key) if key is not None else None) or (), args[1]
        return None


def _split_op(name: str, namespace: Optional[str]) -> Optional[tuple[str, str]]:
    """ "fsdp::op" -> ("fsdp", "op"); "op" (with the library's namespace) -> (namespace, "op")."""
    if "::" in name:
        ns, _, op = name.partition("::")
        return ns, op.split(".")[0]
    return (namespace, name.split(".")[0]) if namespace else None
