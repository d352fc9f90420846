"""The decision about one install site, made once: `SiteJudge.verdict(install)` -> a `SiteVerdict`.

What the site overrides (its catalog entry), which function it installs, and that function against
upstream (`fingerprint`) decide whether the site is a proven copy, unproven (and why), too old for the
target torch, a review target or the enhance patch. The rules say what each verdict means
(`report(site, verdict)` in FSU001, FSU101, FSU102 and FSU201); nothing here imports them.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import replace
from typing import Callable, Optional

import libcst as cst

from fsdp_unpatch import fingerprint
from fsdp_unpatch.analysis import fallbacks
from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id
from fsdp_unpatch.catalog import Catalog, Target
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic.bindings import module_level_bindings
from fsdp_unpatch.semantic.verdicts import Comparison, Relation, SiteVerdict


class SiteJudge:
    """Decides the install sites of one module. `code(node)`: a node's source; `first_line(function)`: the
    file line its compared source starts on."""

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
        self.module = module
        self.module_name = module_name
        self.facts = facts
        self.catalog = catalog
        self.options = options
        self.code = code
        self.first_line = first_line

    def resolve_target(self, install: RawInstall) -> tuple[Optional[str], Optional[str]]:
        """The qualified name the site stores into, and its catalog target id."""
        owner = self.facts.table.qualify(install.owner)
        if owner is None:
            return None, None
        qualified = f"{owner}.{install.attribute}"
        return qualified, target_id(qualified, self.catalog)

    def replacement_function(self, install: RawInstall) -> Optional[cst.FunctionDef]:
        if not isinstance(install.value, cst.Name):
            return None
        candidates = self.facts.functions.get(install.value.value, [])
        # Prefer a definition in the same scope as the install site, then a module-level one.
        for node, parent in candidates:
            if parent is install.function:
                return node
        for node, parent in candidates:
            if parent is None:
                return node
        return None

    @functools.cached_property
    def module_bindings(self) -> Counter:
        """Names bound at module level other than by imports (read once per file, on first need); a
        fallback that never runs on the target torch binds nothing (`fallbacks.py`)."""
        bound = module_level_bindings(self.module)
        if any(isinstance(statement, cst.Try) for statement in self.module.body):
            # A fallback binds nothing only if it never runs on any release the project allows.
            never_runs: Optional[Counter] = None
            for torch in self.options.releases:
                found = fallbacks.resolved_fallbacks(
                    self.module, self.catalog, load_symbols(), torch, module_level_bindings
                )
                never_runs = found if never_runs is None else never_runs & found
            bound -= never_runs or Counter()
        return bound

    def scope(self) -> fingerprint.Scope:
        """What the module's global names are bound to when its functions run: an import that the module
        rebinds later (`def cast(...)`, `dist = other`) names the module's own object, not the import."""
        rebound = self.module_bindings
        table = self.facts.table
        bindings = {
            name: qualified
            for name, qualified in table.bindings.items()
            if not (name in rebound and name in table.sources)
        }
        return fingerprint.Scope(self.module_name or "<module>", bindings)

    def original_names(self, qualified: str) -> frozenset[str]:
        """Local names that stand for the original being replaced (saved originals, imports).

        A by-name twin is the same original: `orig = _fsdp_collectives.foreach_reduce` is what
        `_fsdp_param_group.foreach_reduce` held too.
        """
        target = target_id(qualified, self.catalog)
        same = {target, self.catalog.twin_of(target)} - {None} if target else set()
        return frozenset(
            local
            for local, bound in self.facts.table.bindings.items()
            if bound == qualified or (same and target_id(bound, self.catalog) in same)
        )

    def compare(self, function: cst.FunctionDef, qualified: str, entry: Target) -> Comparison:
        """The replacement against upstream, its free names resolved through this module's bindings."""
        evidence = fingerprint.compare_to_upstream(
            self.code(function),
            entry.fingerprint or entry.id,
            scope=self.scope(),
            original_names=self.original_names(qualified) | {entry.id.split(".")[-1]},
        )
        return Comparison(function.name.value, evidence, self.first_line(function))

    def defined_more_than_once(self, function: cst.FunctionDef) -> bool:
        """The replacement's name is bound again in its scope: which definition is installed depends on
        when the installer runs, so no single one can be proven."""
        name = function.name.value
        parent = next(p for node, p in self.facts.functions[name] if node is function)
        same_scope = [node for node, p in self.facts.functions[name] if p is parent]
        return len(same_scope) > 1 or (parent is None and self.module_bindings[name] > 1)

    # the decision ---------------------------------------------------------------------------------
    def fsdp2_target(self, install: RawInstall) -> Optional[str]:
        target = self.resolve_target(install)[1]
        return target if target is not None and is_fsdp2_private(target, self.catalog) else None

    def verdict(self, install: RawInstall) -> Optional[SiteVerdict]:
        """The verdict on a site that stores into an FSDP2 private symbol; None for any other site (and for a
        `__code__` swap, which its own rule decides)."""
        if install.attribute == "__code__":
            return None
        qualified, target = self.resolve_target(install)
        if target is None or not is_fsdp2_private(target, self.catalog):
            return None
        qualified = qualified or ""
        entry = self.catalog.targets.get(target)
        twin = self.catalog.twin_of(target)
        if entry is None and twin is not None and twin in self.catalog.targets:
            entry = replace(self.catalog.targets[twin], id=target, category="review")  # a by-name binding of it
        base = SiteVerdict("unknown", target, self.code(install.report), entry, value=self.code(install.value))
        kept = target in self.options.keep
        if entry is not None and entry.category == "review" and not kept:
            return replace(base, kind="reviewed", relation=self.relation(install, qualified, entry))
        if entry is not None and entry.category == "keep":
            installer = install.function.name.value if install.function is not None else None
            if installer in self.catalog.enhance_installers or kept:
                return replace(base, kind="enhance")
            return replace(base, kind="outside_enhance", relation=self.relation(install, qualified, entry))
        if kept:
            return replace(base, kind="configured_keep")
        if entry is None or entry.fingerprint is None:
            return base
        return self.removal(install, qualified, entry, base)

    def removal(self, install: RawInstall, qualified: str, entry: Target, base: SiteVerdict) -> SiteVerdict:
        """A removable target: proven, or what stands in the way (not a function, bound twice, a wrapper,
        a copy that differs, a target torch too old)."""
        function = self.replacement_function(install)
        if function is None:
            return replace(base, kind="unproven", reason="not-a-function")
        if self.defined_more_than_once(function):
            return replace(base, kind="unproven", reason="bound-twice", replacement=function.name.value)
        comparison = self.compare(function, qualified, entry)
        if comparison.evidence.calls_original:
            return replace(base, kind="unproven", reason="wraps-original", comparison=comparison)
        if not comparison.evidence.matched:
            return replace(base, kind="unproven", reason="differs", comparison=comparison)
        since = Version.parse(entry.native_since) if entry.native_since else None
        if since is not None and self.options.target_torch < since:
            return replace(
                base,
                kind="too_old",
                comparison=comparison,
                since=since,
                target_torch=self.options.target_torch,
                releases=self.options.releases,
            )
        return replace(base, kind="proven", comparison=comparison)

    def relation(self, install: RawInstall, qualified: str, entry: Target) -> Optional[Relation]:
        """How a kept site's replacement relates to upstream (a wrapper, a copy that differs, an exact copy)."""
        function = self.replacement_function(install)
        if function is None:
            if isinstance(install.value, cst.Call):
                return Relation("factory", value=self.code(install.value))
            return None
        if entry.fingerprint is None:
            return None
        comparison = self.compare(function, qualified, entry)
        if comparison.evidence.calls_original:
            return Relation("wraps-original", comparison=comparison)
        if not comparison.evidence.matched:
            return Relation("differs", comparison=comparison)
        return Relation("matches", comparison=comparison)
