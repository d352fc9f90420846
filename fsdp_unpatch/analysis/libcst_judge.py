"""The install-site decision (`semantic/sites.py`, `Judge`) made from the libcst tree's facts
(`analysis/collect.py`): the planner's fallback where the ast model does not pair with those facts, and the
tests' reference."""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from typing import Callable, Optional

import libcst as cst

from fsdp_unpatch.analysis import fallbacks
from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic.bindings import module_level_bindings
from fsdp_unpatch.semantic.names import dotted_name
from fsdp_unpatch.semantic.sites import Judge


class SiteJudge(Judge[RawInstall, cst.FunctionDef]):
    """The decision from the libcst tree's facts (`analysis/collect.py`). `code(node)`: a node's source;
    `first_line(function)`: the file line its compared source starts on."""

    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        facts: Facts,
        catalog: Catalog,
        options: Options,
        code: Callable[[cst.CSTNode], str],
        first_line: Callable[[cst.FunctionDef], int],
    ):
        super().__init__(module_name, facts.table, catalog, options)
        self.module = module
        self.facts = facts
        self.code = code
        self._first_line = first_line

    def owner_name(self, site: RawInstall) -> Optional[str]:
        return dotted_name(site.owner)

    def attribute(self, site: RawInstall) -> str:
        return site.attribute

    def site_text(self, site: RawInstall) -> str:
        return self.code(site.report)

    def value_text(self, site: RawInstall) -> str:
        return self.code(site.value)

    def value_name(self, site: RawInstall) -> Optional[str]:
        return site.value.value if isinstance(site.value, cst.Name) else None

    def value_is_call(self, site: RawInstall) -> bool:
        return isinstance(site.value, cst.Call)

    def enclosing(self, site: RawInstall) -> Optional[cst.FunctionDef]:
        return site.function

    def definitions(self, name: str) -> list[tuple[cst.FunctionDef, Optional[cst.FunctionDef]]]:
        return self.facts.functions.get(name, [])

    def function_name(self, function: cst.FunctionDef) -> str:
        return function.name.value

    def function_source(self, function: cst.FunctionDef) -> str:
        return self.code(function)

    def first_line(self, function: cst.FunctionDef) -> int:
        return self._first_line(function)

    def bound_at_module_level(self) -> Counter:
        return module_level_bindings(self.module)

    def never_running_fallbacks(self, torch: Version, imports: bool = False) -> Optional[Counter]:
        if not any(isinstance(statement, cst.Try) for statement in self.module.body):
            return None
        count = fallbacks.bindings_with_imports if imports else module_level_bindings
        return fallbacks.resolved_fallbacks(self.module, self.catalog, load_symbols(), torch, count)

    def module_tree(self) -> Optional[ast.Module]:
        try:
            with warnings.catch_warnings():  # remarks on the scanned code are not ours to print
                warnings.simplefilter("ignore")
                return ast.parse(self.module.code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
