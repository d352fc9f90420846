"""The decision about one install site, made once: `Judge.verdict(site)` -> a `SiteVerdict`.

What the site overrides (its catalog entry), which function it installs, and that function against
upstream (`fingerprint`) decide whether the site is a proven copy, unproven (and why), too old for the
target torch, a review target or the enhance patch. The rules say what each verdict means
(`report(site, verdict)` in FSU001, FSU101, FSU102 and FSU201); nothing here imports them.

`Judge` decides from the facts a fact source gives it: `semantic/ast_sites.py` from the `ast` model
(`semantic/model.py`), the one judge, which the planner applies to its libcst nodes (`analysis/site_judging.py`).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import replace
from typing import Generic, Optional, TypeVar

from fsdp_unpatch import fingerprint
from fsdp_unpatch.catalog import Catalog, Target
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.fingerprint.scope import scope_of
from fsdp_unpatch.project.bindings import census
from fsdp_unpatch.semantic.names import ImportTable, is_fsdp2_private, target_id
from fsdp_unpatch.semantic.verdicts import Comparison, Relation, SiteVerdict

Site = TypeVar("Site")  # an install site as the fact source holds it
Fn = TypeVar("Fn")  # a function definition as the fact source holds it (compared with `is`)


class Judge(Generic[Site, Fn]):
    """Decides the install sites of one module from what its fact source tells of them."""

    def __init__(self, module_name: str, table: ImportTable, catalog: Catalog, options: Options):
        self.module_name = module_name
        self.table = table
        self.catalog = catalog
        self.options = options

    # what the fact source tells -------------------------------------------------------------------
    def owner_name(self, site: Site) -> Optional[str]:
        """The owner the site stores into, as a dotted name (None for any other expression)."""
        raise NotImplementedError

    def attribute(self, site: Site) -> str:
        raise NotImplementedError

    def site_text(self, site: Site) -> str:
        raise NotImplementedError

    def value_text(self, site: Site) -> str:
        raise NotImplementedError

    def value_name(self, site: Site) -> Optional[str]:
        """The name the site stores, when its value is a plain name."""
        raise NotImplementedError

    def value_is_call(self, site: Site) -> bool:
        raise NotImplementedError

    def enclosing(self, site: Site) -> Optional[Fn]:
        """The innermost function the site is in."""
        raise NotImplementedError

    def definitions(self, name: str) -> list[tuple[Fn, Optional[Fn]]]:
        """The functions of that name, each with the function it is defined in, in the file's order."""
        raise NotImplementedError

    def function_name(self, function: Fn) -> str:
        raise NotImplementedError

    def function_source(self, function: Fn) -> str:
        """As libcst's `code_for_node` gives it."""
        raise NotImplementedError

    def first_line(self, function: Fn) -> int:
        """The file line the comparison counts the function's differences from."""
        raise NotImplementedError

    def bound_at_module_level(self) -> Counter:
        """`project/bindings.counts`, fallbacks not counted out."""
        raise NotImplementedError

    def never_running_fallbacks(self, torch: Version, imports: bool = False) -> Optional[Counter]:
        """What the module's fallbacks that never run on `torch` bind (`fallbacks.py`), imports counted too
        with `imports` (as the census counts); None: no fallback."""
        raise NotImplementedError

    def module_tree(self) -> Optional[ast.Module]:
        """The module read with CPython's `ast` (None when it cannot be): what its census is taken of."""
        raise NotImplementedError

    # the facts the decision reads -----------------------------------------------------------------
    def resolve_target(self, site: Site) -> tuple[Optional[str], Optional[str]]:
        """The qualified name the site stores into, and its catalog target id."""
        owner = self.owner_name(site)
        if owner is None:
            return None, None
        qualified = f"{self.table.qualify_dotted(owner)}.{self.attribute(site)}"
        return qualified, target_id(qualified, self.catalog)

    def replacement_function(self, site: Site) -> Optional[Fn]:
        name = self.value_name(site)
        if name is None:
            return None
        candidates = self.definitions(name)
        # Prefer a definition in the same scope as the install site, then a module-level one.
        enclosing = self.enclosing(site)
        for node, parent in candidates:
            if parent is enclosing:
                return node
        for node, parent in candidates:
            if parent is None:
                return node
        return None

    @functools.cached_property
    def module_bindings(self) -> Counter:
        """Names bound at module level other than by imports (read once per file, on first need); a
        fallback that never runs on the target torch binds nothing (`fallbacks.py`)."""
        bound = self.bound_at_module_level()
        # A fallback binds nothing only if it never runs on any release the project allows.
        never_runs: Optional[Counter] = None
        for torch in self.options.releases:
            found = self.never_running_fallbacks(torch)
            if found is None:
                return bound
            never_runs = found if never_runs is None else never_runs & found
        return bound - (never_runs or Counter())

    @functools.cached_property
    def _scope(self) -> fingerprint.Scope:
        tree = self.module_tree()
        module = self.module_name or "<module>"
        found = None if tree is None else census(tree, module, self.table.is_package)
        return scope_of(found, module, self.table.bindings, self.ruled_out_fallbacks, self.table.relink)

    @functools.cached_property
    def ruled_out_fallbacks(self) -> Counter:
        """How many fallback bindings of each name never run on any release the project allows."""
        never_runs: Optional[Counter] = None
        for torch in self.options.releases:
            found = self.never_running_fallbacks(torch, imports=True)
            if found is None:
                return Counter()
            never_runs = found if never_runs is None else never_runs & found
        return never_runs or Counter()

    def scope(self) -> fingerprint.Scope:
        """What the module's global names are bound to when its functions run (`project/bindings.py`): a
        name is its import only when that import is the name's sole binding in the module and always runs
        (a fallback that never runs on the allowed releases does not count); a name bound otherwise, or
        more than once, or in a module with a star import, is not resolved and proves nothing."""
        return self._scope

    def original_names(self, qualified: str) -> frozenset[str]:
        """Local names that stand for the original being replaced (saved originals, imports).

        A by-name twin is the same original: `orig = _fsdp_collectives.foreach_reduce` is what
        `_fsdp_param_group.foreach_reduce` held too.
        """
        target = target_id(qualified, self.catalog)
        same = {target, self.catalog.twin_of(target)} - {None} if target else set()
        return frozenset(
            local
            for local, bound in self.table.bindings.items()
            if bound == qualified or (same and target_id(bound, self.catalog) in same)
        )

    def release_relation(self, site: Site, qualified: str, target: str) -> Optional[Relation]:
        """The installed function of a target no proof covers against every known release of the target
        (`fingerprint/releases.py`, loaded only here): None when it is no function defined here, or no
        release has the target."""
        function = self.replacement_function(site)
        if function is None:
            return None
        from fsdp_unpatch.fingerprint.releases import release_verdict

        source, torch = self.function_source(function), str(self.options.target_torch)
        originals = self.original_names(qualified) | {target.split(".")[-1]}
        verdict = None
        for home in (target, self.catalog.twin_of(target)):  # a by-name binding: the function where it is defined
            if home is not None and verdict is None:
                verdict = release_verdict(source, home, torch, originals)
        return None if verdict is None else Relation("release", value=self.function_name(function), release=verdict)

    def compare(self, function: Fn, qualified: str, entry: Target) -> Comparison:
        """The replacement against upstream, its free names resolved through this module's bindings."""
        evidence = fingerprint.compare_to_upstream(
            self.function_source(function),
            entry.fingerprint or entry.id,
            scope=self.scope(),
            original_names=self.original_names(qualified) | {entry.id.split(".")[-1]},
        )
        return Comparison(self.function_name(function), evidence, self.first_line(function))

    def defined_more_than_once(self, function: Fn) -> bool:
        """The replacement's name is bound again in its scope: which definition is installed depends on
        when the installer runs, so no single one can be proven."""
        name = self.function_name(function)
        definitions = self.definitions(name)
        parent = next(p for node, p in definitions if node is function)
        same_scope = [node for node, p in definitions if p is parent]
        return len(same_scope) > 1 or (parent is None and self.module_bindings[name] > 1)

    # the decision ---------------------------------------------------------------------------------
    def fsdp2_target(self, site: Site) -> Optional[str]:
        target = self.resolve_target(site)[1]
        return target if target is not None and is_fsdp2_private(target, self.catalog) else None

    def verdict(self, site: Site) -> Optional[SiteVerdict]:
        """The verdict on a site that stores into an FSDP2 private symbol; None for any other site (and for a
        `__code__` swap, which its own rule decides)."""
        if self.attribute(site) == "__code__":
            return None
        qualified, target = self.resolve_target(site)
        if target is None or not is_fsdp2_private(target, self.catalog):
            return None
        qualified = qualified or ""
        entry = self.catalog.targets.get(target)
        twin = self.catalog.twin_of(target)
        if entry is None and twin is not None and twin in self.catalog.targets:
            entry = replace(self.catalog.targets[twin], id=target, category="review")  # a by-name binding of it
        base = SiteVerdict("unknown", target, self.site_text(site), entry, value=self.value_text(site))
        kept = target in self.options.keep
        if entry is not None and entry.category == "review" and not kept:
            return replace(base, kind="reviewed", relation=self.relation(site, qualified, entry))
        if entry is not None and entry.category == "keep":
            enclosing = self.enclosing(site)
            installer = self.function_name(enclosing) if enclosing is not None else None
            if installer in self.catalog.enhance_installers or kept:
                return replace(base, kind="enhance")
            return replace(base, kind="outside_enhance", relation=self.relation(site, qualified, entry))
        if kept:
            return replace(base, kind="configured_keep")
        if entry is None or entry.fingerprint is None:
            return replace(base, relation=self.release_relation(site, qualified, target))
        return self.removal(site, qualified, entry, base)

    def removal(self, site: Site, qualified: str, entry: Target, base: SiteVerdict) -> SiteVerdict:
        """A removable target: proven, or what stands in the way (not a function, bound twice, a wrapper,
        a copy that differs, a target torch too old)."""
        function = self.replacement_function(site)
        if function is None:
            return replace(base, kind="unproven", reason="not-a-function")
        if self.defined_more_than_once(function):
            return replace(base, kind="unproven", reason="bound-twice", replacement=self.function_name(function))
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

    def relation(self, site: Site, qualified: str, entry: Target) -> Optional[Relation]:
        """How a kept site's replacement relates to upstream (a wrapper, a copy that differs, an exact copy)."""
        function = self.replacement_function(site)
        if function is None:
            if self.value_is_call(site):
                return Relation("factory", value=self.value_text(site))
            return None
        if entry.fingerprint is None:
            return self.release_relation(site, qualified, entry.id)
        comparison = self.compare(function, qualified, entry)
        if comparison.evidence.calls_original:
            return Relation("wraps-original", comparison=comparison)
        if not comparison.evidence.matched:
            return Relation("differs", comparison=comparison)
        return Relation("matches", comparison=comparison)
