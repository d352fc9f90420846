"""Name resolution: from the spelling in a file to a qualified name, and to a catalog target id.

A light-weight stand-in for libcst's QualifiedNameProvider: it records the import statements and simple
module aliases of a file (any scope), which is all an install site needs, at a fraction of the cost
of scope analysis. It reads names only (dotted strings): the `ast` model and the libcst collector
(`analysis/patterns.py`: `dotted_name`, `qualify`, `bind_imports`) hand them over.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.project.module_names import resolve_relative


class ImportTable:
    """Maps the local names of a file to the qualified names they stand for."""

    def __init__(
        self, module: Optional[str] = None, is_package: bool = False, linked: Optional[Mapping[str, str]] = None
    ) -> None:
        self.module = module
        self.is_package = is_package
        # Names other files of the run bind to FSDP2 modules or classes ("pkg.compat.fsm" ->
        # "torch.distributed.fsdp._fully_shard._fully_shard"): what is imported from there is that.
        self.linked = dict(linked or {})
        self.bindings: dict[str, str] = {}
        # local name -> what binds it: the import alias a fix deletes to remove an unused import (a libcst
        # `ImportAlias`, or what the `ast` model records)
        self.sources: dict[str, list[Any]] = {}

    # What an import binds, from the names alone (the `ast` model and `analysis/patterns.py`'s libcst reader
    # bind them so).
    def bind_import(self, full: str, asname: Optional[str], source: Any) -> None:
        """`import full` or `import full as asname`; `source`: what removing the import deletes."""
        if asname is not None:
            local = asname
            self.bindings[local] = self.relink(full)
        else:
            local = full.split(".")[0]
            self.bindings[local] = local
        self.sources.setdefault(local, []).append(source)

    def bind_import_from(self, level: int, base: str, names: list[tuple[str, Optional[str], Any]]) -> None:
        """`from <level dots><base> import name [as asname], ...`, each with its `source`."""
        module = resolve_relative(self.module, self.is_package, level, base)
        if module is None:
            return
        for name, asname, source in names:
            local = asname if asname is not None else name
            self.bindings[local] = self.relink(f"{module}.{name}" if module else name)
            self.sources.setdefault(local, []).append(source)

    def add_alias(self, local: str, qualified: str) -> None:
        """`C = torch.distributed...._fsdp_collectives` makes C another spelling of that module."""
        self.bindings[local] = qualified

    def qualify_dotted(self, name: str) -> str:
        """The qualified name `a.b.c` stands for in this file."""
        head, _, rest = name.partition(".")
        bound = self.bindings.get(head, head)
        return self.relink(f"{bound}.{rest}" if rest else bound)

    def relink(self, qualified: str) -> str:
        """`qualified` with a prefix that another file binds to FSDP2 replaced by what it stands for."""
        if self.linked:
            parts = qualified.split(".")
            for end in range(len(parts), 0, -1):
                prefix = ".".join(parts[:end])
                if prefix in self.linked:
                    return ".".join([self.linked[prefix], *parts[end:]])
        return qualified


def target_id(qualified: str, catalog: Catalog) -> Optional[str]:
    """Canonical catalog id of a qualified name under FSDP2 or `torch.ops`, else None.

    `torch.distributed._composable.fsdp._fsdp_param_group.FSDPParamGroup.finalize_backward` and the
    same under `torch.distributed.fsdp._fully_shard` both give
    `_fsdp_param_group.FSDPParamGroup.finalize_backward`; a class reached through another module than
    the one defining it is the same object, so it is named after its defining module.
    """
    if qualified.startswith("torch.ops."):
        return "ops." + qualified[len("torch.ops.") :]
    for family, module in catalog.family_modules.items():
        if qualified.startswith(module + "."):
            qualified = f"{catalog.fsdp2_roots[0]}.{family}.{qualified[len(module) + 1 :]}"
    for root in catalog.fsdp2_roots:
        if qualified.startswith(root + "."):
            parts = qualified[len(root) + 1 :].split(".")
            if parts[0] in catalog.classes:  # re-exported by the package root (`...fsdp.FSDPModule`)
                parts.insert(0, catalog.classes[parts[0]])
            if len(parts) >= 3 and parts[1] in catalog.classes:
                parts[0] = catalog.classes[parts[1]]
            return ".".join(parts)
    return None


def is_fsdp2_private(target: str, catalog: Catalog) -> bool:
    """A target id names something private of FSDP2 (a `_module`, a module of its private family
    such as `torch.distributed._composable.replicate_with_fsdp`, or a `torch.ops.fsdp` op)."""
    return target.startswith("_") or target.startswith("ops.fsdp.") or target.split(".")[0] in catalog.family_modules
