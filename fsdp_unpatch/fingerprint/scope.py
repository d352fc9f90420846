"""What the free names of a function stand for: the module's imports, its own definitions, builtins.

Two copies of a function are the same only if their free names mean the same thing: `dist` must be
`torch.distributed` in both, `FSDPParam` must come from FSDP2's own module. So before comparing, every
free name is replaced by the qualified name it is bound to (see `normalise.resolve_names`).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Mapping, Optional

# FSDP2's package moved in torch 2.6; both spellings name one package.
FSDP2_ROOTS = ("torch.distributed.fsdp._fully_shard", "torch.distributed._composable.fsdp")
FSDP2 = "FSDP2"
_BUILTINS = frozenset(dir(builtins))


def canonical(qualified: str) -> str:
    """One spelling per object: FSDP2's two package paths become ``FSDP2``."""
    for root in FSDP2_ROOTS:
        if qualified == root or qualified.startswith(root + "."):
            return FSDP2 + qualified[len(root) :]
    return qualified


@dataclass(frozen=True)
class Scope:
    """The module around a function: its name and what its global names are bound to."""

    module: str
    bindings: Mapping[str, str] = field(default_factory=dict)  # local name -> qualified name

    def resolve(self, name: str) -> str:
        """The canonical qualified name a global name stands for.

        An imported name is what it was imported as; a builtin is itself; anything else is taken to be
        defined by the module (``<module>.<name>``), so that a helper of the copy's own module never
        equals FSDP2's helper of the same name.
        """
        bound = self.bindings.get(name)
        if bound is not None:
            return canonical(bound)
        if name in _BUILTINS:
            return name
        return canonical(f"{self.module}.{name}")

    @classmethod
    def of_module(cls, source: str, module: str, is_package: bool = False) -> Scope:
        """The scope of a module given as text (imports anywhere in it, like the analysis reads them)."""
        return cls(module, module_bindings(ast.parse(source), module, is_package))


def _relative(module: str, is_package: bool, level: int, name: Optional[str]) -> Optional[str]:
    if level == 0:
        return name
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def module_bindings(tree: ast.Module, module: str, is_package: bool = False) -> dict[str, str]:
    """local name -> qualified name, for every import statement of a module."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    out[head] = head
        elif isinstance(node, ast.ImportFrom):
            base = _relative(module, is_package, node.level, node.module)
            if base is None:
                continue
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return out
