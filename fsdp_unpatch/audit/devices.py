"""The device of a tensor (list) expression, told from the code around a `_foreach_copy_` call when it can be:
`device="npu"`, `.to("cpu")`, `.cpu()`/`.npu()`, `pin_memory`, factories on the default device, views and
`*_like` of a tensor whose device is known, through local assignments."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional

from fsdp_unpatch.i18n import Phrase
from fsdp_unpatch.semantic.imports import dotted
from fsdp_unpatch.semantic.names import ImportTable

# Calls whose result lives where their first tensor lives.
_SAME_AS_INPUT_FUNCTIONS = frozenset(
    {
        "torch.split",
        "torch.chunk",
        "torch.narrow",
        "torch.empty_like",
        "torch.zeros_like",
        "torch.ones_like",
        "torch.rand_like",
        "torch.randn_like",
        "torch.full_like",
        "torch.flatten",
        "torch.cat",
        "torch.stack",
    }
)
_SAME_AS_RECEIVER_METHODS = frozenset(
    {
        "split",
        "chunk",
        "narrow",
        "view",
        "reshape",
        "clone",
        "detach",
        "contiguous",
        "flatten",
        "t",
        "float",
        "half",
        "bfloat16",
        "to_dense",
        "new_empty",
        "new_zeros",
        "new_ones",
        "new_full",
        "copy_",
        "unbind",
    }
)
_DEVICE_METHODS = {"cpu": "cpu", "npu": "npu", "cuda": "cuda", "pin_memory": "pinned cpu"}
_FACTORIES = frozenset(
    {
        "torch.empty",
        "torch.zeros",
        "torch.ones",
        "torch.randn",
        "torch.rand",
        "torch.randint",
        "torch.arange",
        "torch.full",
        "torch.tensor",
        "torch.linspace",
    }
)


@dataclass(frozen=True)
class Operand:
    expression: str
    device: Optional[str]  # "npu", "cpu", "pinned cpu", "cuda", ... None: not visible in the code
    evidence: str  # how the device was told (`.to("cpu")`), or why it could not be (a `Phrase` when it has words)


def one_line(code: str, limit: int = 90) -> str:
    text = " ".join(code.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Argument(NamedTuple):
    keyword: Optional[str]  # None: positional, `*args` or `**kwargs`
    value: ast.expr
    star: str  # "", "*" or "**"


def arguments(call: ast.Call) -> list[Argument]:
    """A call's arguments in the order they are written (ast keeps the keywords apart, after the positional
    ones, and `f(a=1, *b)` writes a keyword first)."""
    found = [Argument(None, a.value, "*") if isinstance(a, ast.Starred) else Argument(None, a, "") for a in call.args]
    found += [Argument(k.arg, k.value, "" if k.arg else "**") for k in call.keywords]
    if call.args and call.keywords:
        found.sort(key=lambda a: (a.value.lineno, a.value.col_offset))
    return found


def qualify(table: ImportTable, node: ast.AST) -> Optional[str]:
    """The qualified name an expression stands for (`ImportTable.qualify`, for an `ast` node)."""
    name = dotted(node)
    return None if name is None else table.qualify_dotted(name)


def plain_name(node: ast.AST) -> Optional[str]:
    """The name a plain name spells (`None`, `True` and `False` are names to libcst)."""
    return dotted(node) if isinstance(node, (ast.Name, ast.Constant)) else None


def string_value(node: ast.AST) -> Optional[str]:
    """A string literal's value (literals side by side too); None for an f-string or anything else."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def device_text(node: ast.AST, table: ImportTable) -> Optional[str]:
    """`"npu:0"` -> npu; `torch.device("cpu")` -> cpu; anything else: None."""
    literal = string_value(node)
    if literal is None and isinstance(node, ast.Call) and qualify(table, node.func) == "torch.device":
        given = arguments(node)
        if given:
            literal = string_value(given[0].value)
    if literal is None:
        return None
    return literal.split(":", 1)[0].strip() or None


class Devices:
    """Tells the device of a tensor (list) expression from the code around it, when it can."""

    def __init__(self, table: ImportTable, code: Callable[[ast.AST], str], assignments: dict[str, list[ast.expr]]):
        self.table = table
        self.code = code
        self.assignments = assignments

    def of(self, node: ast.expr, depth: int = 0) -> tuple[Optional[str], str]:
        if depth > 6:
            return None, Phrase("too many steps to follow")
        if isinstance(node, (ast.List, ast.Tuple)):
            found = [self.of(e.value if isinstance(e, ast.Starred) else e, depth + 1) for e in node.elts]
            devices = {d for d, _ in found}
            if len(devices) == 1 and None not in devices:
                return found[0]
            return None, Phrase("elements on different or unknown devices")
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            # `[f(t) for t in xs]`: for its device, `t` stands for the list `xs` it comes from.
            loop = node.generators[0]
            if isinstance(loop.target, ast.Name):
                inner = Devices(self.table, self.code, {**self.assignments, loop.target.id: [loop.iter]})
                return inner.of(node.elt, depth + 1)
            return self.of(node.elt, depth + 1)
        name = plain_name(node)
        if name is not None:
            values = self.assignments.get(name, [])
            if len(values) == 1:
                return self.of(values[0], depth + 1)
            if not values:
                return None, Phrase("`{name}` comes from outside this function", name=name)
            return None, Phrase("`{name}` is assigned more than once", name=name)
        if isinstance(node, ast.Call):
            return self.of_call(node, depth)
        return None, Phrase("`{code}` (not visible here)", code=one_line(self.code(node), 40))

    def of_call(self, call: ast.Call, depth: int) -> tuple[Optional[str], str]:
        given = arguments(call)
        keywords = {a.keyword: a.value for a in given if a.keyword is not None}
        if "device" in keywords:
            device = device_text(keywords["device"], self.table)
            shown = one_line(self.code(keywords["device"]), 30)
            return (
                (device, f"`device={shown}`")
                if device
                else (None, Phrase("`device={shown}` (not a literal)", shown=shown))
            )
        pinned = keywords.get("pin_memory")
        if pinned is not None and plain_name(pinned) == "True":
            return "pinned cpu", "`pin_memory=True`"
        func = call.func
        qualified = qualify(self.table, func)
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "to":
                for value in (a.value for a in given if a.keyword is None):
                    device = device_text(value, self.table)
                    if device:
                        return device, f"`.to({one_line(self.code(value), 30)})`"
                return None, Phrase("`.to(...)` with a device not visible here")
            if method in _DEVICE_METHODS and qualified not in _FACTORIES:
                return _DEVICE_METHODS[method], f"`.{method}()`"
            if method in _SAME_AS_RECEIVER_METHODS and qualified not in _SAME_AS_INPUT_FUNCTIONS:
                device, evidence = self.of(func.value, depth + 1)
                return device, evidence
        if qualified in _SAME_AS_INPUT_FUNCTIONS and given:
            return self.of(given[0].value, depth + 1)
        if qualified in _FACTORIES:
            return "cpu", Phrase("`{function}(...)` on the default device", function=qualified)
        return None, Phrase("`{code}` (not visible here)", code=one_line(self.code(call), 40))


def assignments_in(scope: Optional[ast.AST]) -> dict[str, list[ast.expr]]:
    """name -> the values assigned to it anywhere in `scope` (a function, with what is nested in it)."""
    found: dict[str, list[ast.expr]] = {}
    if scope is None:
        return found
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
    return found


def same_device_verdict(destination: Operand, source: Operand) -> tuple[str, str]:
    if destination.device and source.device:
        same = destination.device.split(" ")[0] == source.device.split(" ")[0]
        return ("yes", "same device") if same else ("no", "host-device copy")
    return "unknown", "devices not visible here"
