"""What the free names of a function stand for: the module's imports, its own definitions, builtins.

Two copies of a function are the same only if their free names mean the same thing: `dist` must be
`torch.distributed` in both, `FSDPParam` must come from FSDP2's own module. So before comparing, every
free name is replaced by the qualified name it is bound to (see `normalise.resolve_names`).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

from fsdp_unpatch.project.bindings import Binding, Census, census
from fsdp_unpatch.project.module_names import resolve_relative

# FSDP2's package moved in torch 2.6; both spellings name one package.
FSDP2_ROOTS = ("torch.distributed.fsdp._fully_shard", "torch.distributed._composable.fsdp")
FSDP2 = "FSDP2"
_BUILTINS = frozenset(dir(builtins))
BUILTINS = _BUILTINS
UNRESOLVED = "?"  # the prefix of a name the scope cannot resolve


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
    # Names the module binds so that what they stand for cannot be told (`why_unresolved`): name -> why.
    unresolved: Mapping[str, str] = field(default_factory=dict)
    dynamic: str = ""  # why any name of the module may be bound (a star import, `globals()`), or ""
    future_annotations: bool = False  # `from __future__ import annotations`: no annotation is evaluated

    def key(self) -> tuple:
        """Everything the scope says, hashable (for caches of comparisons)."""
        return (
            self.module,
            tuple(sorted(self.bindings.items())),
            tuple(sorted(self.unresolved.items())),
            self.dynamic,
            self.future_annotations,
        )

    def is_resolved(self, name: str) -> bool:
        return not self.dynamic and name not in self.unresolved

    def resolve(self, name: str) -> str:
        """The canonical qualified name a global name stands for.

        An imported name is what it was imported as; a builtin is itself; anything else is taken to be
        defined by the module (``<module>.<name>``), so that a helper of the copy's own module never
        equals FSDP2's helper of the same name. A name the module binds so that it cannot be told what it
        stands for (`unresolved`, `dynamic`) is ``?<name>``: equal to nothing upstream spells.
        """
        if not self.is_resolved(name):
            return UNRESOLVED + name
        bound = self.bindings.get(name)
        if bound is not None:
            return canonical(bound)
        if name in _BUILTINS:
            return name
        return canonical(f"{self.module}.{name}")

    @classmethod
    def of_module(cls, source: str, module: str, is_package: bool = False) -> Scope:
        """The scope of a module given as text: its census (`project/bindings.py`) says which names are proven."""
        tree = ast.parse(source)
        return scope_of(census(tree, module, is_package), module, module_bindings(tree, module, is_package))


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
            base = resolve_relative(module, is_package, node.level, node.module or "")
            if base is None:
                continue
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return out


# Why nothing of a module is resolved when CPython's parser cannot read it (libcst can: newer syntax than the
# running Python). `compare.py` says so instead of listing every statement as different.
UNPARSABLE_MODULE = "its module uses syntax Python {version} cannot parse, so none of its names can be resolved"


def why_unresolved(bindings: tuple[Binding, ...]) -> Optional[str]:
    """Why a name bound so cannot be proven to be its import (None: its sole binding is an import that runs)."""
    if not bindings:
        return None
    if len(bindings) > 1 and all(b.kind == "import" and b.qualified == bindings[0].qualified for b in bindings):
        # `import torch` and `import torch.distributed`: each binds `torch` to the same package
        if bindings[0].qualified is not None and any(b.plain for b in bindings):
            return None
    if len(bindings) > 1:
        lines = ", ".join(str(b.line) for b in bindings)
        return f"bound {len(bindings)} times in its module (lines {lines})"
    (only,) = bindings
    if only.kind not in ("import", "alias"):
        return None  # the module's own object: resolved as such, never equal to upstream's
    if not only.plain:
        return f"bound at line {only.line} only under a condition or in a loop"
    if only.qualified is None:
        return f"imported at line {only.line} from a relative module outside the project"
    return None


def scope_of(
    found: Optional[Census],
    module: str,
    imports: Mapping[str, str],
    ruled_out: Optional[Mapping[str, int]] = None,
    relink: Optional[Callable[[str], str]] = None,
) -> Scope:
    """The scope of a module whose census is `found` (None: it could not be taken, nothing is proven).

    `imports`: what the analysis says each imported name is (the names other files of the run link to FSDP2
    included); a name is bound to it only when the census proves the name's sole binding is that import.
    `ruled_out`: how many fallback bindings of each name never run on any release the project allows
    (`analysis/fallbacks.py`); `relink`: the analysis's rewriting of a qualified name through those links."""
    if found is None:
        return Scope(module, {}, {}, UNPARSABLE_MODULE)
    bindings: dict[str, str] = {}
    unresolved: dict[str, str] = {}
    aliases: dict[str, str] = {}  # name -> the head of the dotted name it is assigned
    for name, all_bindings in found.names.items():
        kept = list(all_bindings)
        for _ in range((ruled_out or {}).get(name, 0)):
            fallback = next((b for b in kept if b.fallback), None)
            if fallback is not None:
                kept.remove(fallback)
        why = why_unresolved(tuple(kept))
        if why is not None:
            unresolved[name] = why
        elif kept and all(b.kind == "import" for b in kept) and kept[0].qualified is not None:
            bindings[name] = relink(kept[0].qualified) if relink is not None else kept[0].qualified
        elif len(kept) == 1 and kept[0].kind == "alias" and kept[0].plain and name in imports:
            aliases[name] = (kept[0].qualified or "").split(".")[0]
        elif kept:  # the module's own object (a builtin's name included: `isinstance = ...` is not the builtin)
            bindings[name] = f"{module}.{name}"
    for name, head in aliases.items():  # `C = torch.distributed....`: another spelling of what `torch` is
        if head in unresolved or found.dynamic or head in aliases:
            unresolved[name] = f"an alias of `{head}`, which cannot be resolved"
        else:
            bindings[name] = imports[name]
    return Scope(module, bindings, unresolved, found.dynamic, found.future_annotations)
