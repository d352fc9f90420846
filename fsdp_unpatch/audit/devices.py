"""The device of a tensor (list) expression, told from the code around a `_foreach_copy_` call when it can be:
`device="npu"`, `.to("cpu")`, `.cpu()`/`.npu()`, `pin_memory`, factories on the default device, views and
`*_like` of a tensor whose device is known, through local assignments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from fsdp_unpatch.i18n import Phrase
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


def string_value(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def device_text(node: cst.BaseExpression, table: ImportTable) -> Optional[str]:
    """`"npu:0"` -> npu; `torch.device("cpu")` -> cpu; anything else: None."""
    literal = string_value(node)
    if literal is None and isinstance(node, cst.Call) and table.qualify(node.func) == "torch.device" and node.args:
        literal = string_value(node.args[0].value)
    if literal is None:
        return None
    return literal.split(":", 1)[0].strip() or None


class Devices:
    """Tells the device of a tensor (list) expression from the code around it, when it can."""

    def __init__(self, table: ImportTable, code, assignments: dict[str, list[cst.BaseExpression]]):
        self.table = table
        self.code = code
        self.assignments = assignments

    def of(self, node: cst.BaseExpression, depth: int = 0) -> tuple[Optional[str], str]:
        if depth > 6:
            return None, Phrase("too many steps to follow")
        if isinstance(node, (cst.List, cst.Tuple)):
            found = [self.of(e.value, depth + 1) for e in node.elements]
            devices = {d for d, _ in found}
            if len(devices) == 1 and None not in devices:
                return found[0]
            return None, Phrase("elements on different or unknown devices")
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            # `[f(t) for t in xs]`: for its device, `t` stands for the list `xs` it comes from.
            target = node.for_in.target
            if isinstance(target, cst.Name):
                inner = Devices(self.table, self.code, {**self.assignments, target.value: [node.for_in.iter]})
                return inner.of(node.elt, depth + 1)
            return self.of(node.elt, depth + 1)
        if isinstance(node, cst.Name):
            values = self.assignments.get(node.value, [])
            if len(values) == 1:
                return self.of(values[0], depth + 1)
            if not values:
                return None, Phrase("`{name}` comes from outside this function", name=node.value)
            return None, Phrase("`{name}` is assigned more than once", name=node.value)
        if isinstance(node, cst.Call):
            return self.of_call(node, depth)
        return None, Phrase("`{code}` (not visible here)", code=one_line(self.code(node), 40))

    def of_call(self, call: cst.Call, depth: int) -> tuple[Optional[str], str]:
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if "device" in keywords:
            device = device_text(keywords["device"], self.table)
            shown = one_line(self.code(keywords["device"]), 30)
            return (
                (device, f"`device={shown}`")
                if device
                else (None, Phrase("`device={shown}` (not a literal)", shown=shown))
            )
        pinned = keywords.get("pin_memory")
        if isinstance(pinned, cst.Name) and pinned.value == "True":
            return "pinned cpu", "`pin_memory=True`"
        func = call.func
        qualified = self.table.qualify(func)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "to":
                positional = [a.value for a in call.args if a.keyword is None]
                for value in positional:
                    device = device_text(value, self.table)
                    if device:
                        return device, f"`.to({one_line(self.code(value), 30)})`"
                return None, Phrase("`.to(...)` with a device not visible here")
            if method in _DEVICE_METHODS and qualified not in _FACTORIES:
                return _DEVICE_METHODS[method], f"`.{method}()`"
            if method in _SAME_AS_RECEIVER_METHODS and qualified not in _SAME_AS_INPUT_FUNCTIONS:
                device, evidence = self.of(func.value, depth + 1)
                return device, evidence
        if qualified in _SAME_AS_INPUT_FUNCTIONS and call.args:
            return self.of(call.args[0].value, depth + 1)
        if qualified in _FACTORIES:
            return "cpu", Phrase("`{function}(...)` on the default device", function=qualified)
        return None, Phrase("`{code}` (not visible here)", code=one_line(self.code(call), 40))


def assignments_in(scope: Optional[cst.CSTNode]) -> dict[str, list[cst.BaseExpression]]:
    found: dict[str, list[cst.BaseExpression]] = {}
    if scope is None:
        return found

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    found.setdefault(target.target.value, []).append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if isinstance(node.target, cst.Name) and node.value is not None:
                found.setdefault(node.target.value, []).append(node.value)

    scope.visit(_Assigns())
    return found


def same_device_verdict(destination: Operand, source: Operand) -> tuple[str, str]:
    if destination.device and source.device:
        same = destination.device.split(" ")[0] == source.device.split(" ")[0]
        return ("yes", "same device") if same else ("no", "host-device copy")
    return "unknown", "devices not visible here"
