"""What the codemods share: analyse the module, keep the edits of some rules, apply them."""
from __future__ import annotations

from typing import ClassVar, FrozenSet

import libcst as cst
from libcst.codemod import VisitorBasedCodemodCommand

from fsdp_unpatch.analysis import FileAnalysis, Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.edits import apply_edits
from fsdp_unpatch.versions import target_torch


class UnpatchCodemod(VisitorBasedCodemodCommand):
    """Base class: subclasses name the rule codes whose fixes they apply."""

    CODES: ClassVar[FrozenSet[str]] = frozenset()

    def analyze(self, tree: cst.Module) -> FileAnalysis:
        catalog = load_catalog()
        version, _ = target_torch(None, catalog.newest_torch)
        name = self.context.full_module_name or (self.context.filename or "module").rsplit("/", 1)[-1][:-3]
        is_package = bool(self.context.filename and self.context.filename.endswith("__init__.py"))
        return analyze_module(tree, name, is_package, catalog, Options(target_torch=version))

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        analysis = self.analyze(tree)
        catalog = load_catalog()
        chosen = [
            p for p in analysis.planned
            if p.code in self.CODES and catalog.rule(p.code).fix == "safe" and p.edits
            and all(r.code in self.CODES for r in p.requires)
        ]
        if not chosen:
            return tree
        return apply_edits(analysis, [edit for planned in chosen for edit in planned.edits])
