"""The decision about install sites from the `ast` model (`semantic/model.py`): the one judge of install sites
(the planner applies it to its libcst nodes, `analysis/site_judging.py`). One fact still comes from libcst:
what a module's fallbacks bind when they never run on a release (`analysis/fallbacks.py`), asked of
`fallbacks` only for a module with a `try` at module level.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Callable, Optional

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic.model import Function, InstallSite, SemanticModel
from fsdp_unpatch.semantic.sites import Judge


class AstJudge(Judge[InstallSite, Function]):
    def __init__(
        self,
        model: SemanticModel,
        module_name: str,
        catalog: Catalog,
        options: Options,
        fallbacks: Callable[[Version, bool], Counter],
        file_line: Optional[Callable[[int], int]] = None,
    ):
        super().__init__(module_name, model.table, catalog, options)
        self.model = model
        self.fallbacks = fallbacks
        self.file_line = file_line  # for a model of an excerpt: the file's line for an excerpt's line

    def owner_name(self, site: InstallSite) -> Optional[str]:
        return site.owner_name

    def attribute(self, site: InstallSite) -> str:
        return site.attribute

    def site_text(self, site: InstallSite) -> str:
        return site.text

    def value_text(self, site: InstallSite) -> str:
        return site.value

    def value_name(self, site: InstallSite) -> Optional[str]:
        return site.value_name

    def value_is_call(self, site: InstallSite) -> bool:
        return site.value_is_call

    def enclosing(self, site: InstallSite) -> Optional[Function]:
        return None if site.function is None else self.model.functions[site.function]

    def definitions(self, name: str) -> list[tuple[Function, Optional[Function]]]:
        functions = self.model.functions
        return [(f, None if f.parent is None else functions[f.parent]) for f in functions if f.name == name]

    def function_name(self, function: Function) -> str:
        return function.name

    def function_source(self, function: Function) -> str:
        return function.source

    def first_line(self, function: Function) -> int:
        if self.file_line is None:
            return function.first_line
        above = function.span.start_line - function.first_line  # the blank and comment lines it owns
        return self.file_line(function.span.start_line) - above

    def bound_at_module_level(self) -> Counter:
        return self.model.module_bindings

    def never_running_fallbacks(self, torch: Version, imports: bool = False) -> Optional[Counter]:
        return self.fallbacks(torch, imports) if self.model.has_fallbacks else None

    def module_tree(self) -> Optional[ast.Module]:
        return self.model.tree
