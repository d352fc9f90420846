"""Per-file analysis: find the parts of FSDP2 monkey-patches and plan their fixes.

A patch has parts — install sites, the replacement functions they install, the installer that holds
them, the installer's calls — and the analysis sees them as one thing: a replacement is removed only
with all its install sites, an installer only when nothing is left for it to install.

`analyze_module` handles one file; `plan_installer_calls` adds what other files of the run decided
(calls of an installer that is removed elsewhere).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from fsdp_unpatch import fingerprint
from fsdp_unpatch.analysis import scoping
from fsdp_unpatch.analysis.collect import Facts, RawCall, RawInstall, collect, count_names
from fsdp_unpatch.analysis.excerpt import Excerpt
from fsdp_unpatch.analysis.names import ImportTable, dotted_name, is_fsdp2_private, target_id
from fsdp_unpatch.analysis.patterns import body_statements, descendants, is_docstring, same_device_copy
from fsdp_unpatch.analysis.planned import Edit, Planned
from fsdp_unpatch.analysis.screen import Detail
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.fingerprint.normalise import local_names
from fsdp_unpatch.rules import (
    collective_override,
    completeness,
    enhance_patch,
    native_path_too_old,
    overrides,
    unproven_override,
)
from fsdp_unpatch.rules.installer_call import INSTALLER_CALL
from fsdp_unpatch.rules.kernel_registration import KERNEL_REGISTRATION
from fsdp_unpatch.rules.override_replacement import OVERRIDE_REPLACEMENT
from fsdp_unpatch.rules.patch_installer import PATCH_INSTALLER
from fsdp_unpatch.rules.redundant_class_patch import REDUNDANT_CLASS_PATCH
from fsdp_unpatch.rules.registry import file_checks
from fsdp_unpatch.rules.same_device_foreach_copy import SAME_DEVICE_COPY
from fsdp_unpatch.rules.stale_by_name_import import STALE_BY_NAME_IMPORT
from fsdp_unpatch.semantic.sites import SiteJudge
from fsdp_unpatch.semantic.verdicts import Kind, SiteVerdict

# The rule that says each kind of install-site verdict.
SITE_REPORTS: dict[Kind, Callable[[RawInstall, SiteVerdict], Planned]] = {
    "proven": collective_override.report,
    "too_old": native_path_too_old.report,
    "unproven": unproven_override.report,
    "unknown": unproven_override.report,
    "reviewed": unproven_override.report,
    "outside_enhance": unproven_override.report,
    "enhance": enhance_patch.report,
    "configured_keep": enhance_patch.report,
}


@dataclass
class Installer:
    """A function that installs overrides, and whether the fix leaves it anything to do."""

    node: cst.FunctionDef
    qualified: str
    removable: bool
    finding: Optional[Planned] = None


@dataclass
class FileAnalysis:
    module: cst.Module
    module_name: str
    facts: Facts
    planned: list[Planned] = field(default_factory=list)
    installers: list[Installer] = field(default_factory=list)
    # Replacement functions the fix would delete, by name; kept when another file refers to them.
    replacements: dict[str, Planned] = field(default_factory=dict)
    # What the file's install sites patch (for the patch-completeness rules across the run).
    patched: list[completeness.Patched] = field(default_factory=list)
    # FSU401 findings and the counterpart each misses; dropped when another file patches it.
    incomplete: list[tuple[completeness.Incomplete, Planned]] = field(default_factory=list)
    # Module-level names bound to an FSDP2 module or class (`fsm = torch...._fully_shard`): other files of the
    # run that import them patch FSDP2 through them (`run/engine.py`, `link_module_aliases`).
    module_aliases: dict[str, str] = field(default_factory=dict)

    _positions: Optional[Mapping[cst.CSTNode, CodeRange]] = None
    # For an excerpt of a large file (`excerpt.py`): the file's line for a line of the excerpt, and the names
    # the statements held aside use, spell and assign.
    file_line: Optional[Callable[[int], int]] = None
    hidden: Optional[Detail] = None
    # Positions given by hand to stand-in nodes (a name found inside a string literal), by id.
    _placed: dict[int, CodeRange] = field(default_factory=dict)

    @property
    def table(self) -> ImportTable:
        return self.facts.table

    def position(self, node: cst.CSTNode) -> CodeRange:
        """Where a node stands in the file (computed once, on first need: it costs a tree walk)."""
        if id(node) in self._placed:
            return self._placed[id(node)]
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        where = self._positions[node]
        if self.file_line is None:
            return where
        return CodeRange(
            CodePosition(self.file_line(where.start.line), where.start.column),
            CodePosition(self.file_line(where.end.line), where.end.column),
        )

    def place(self, node: cst.CSTNode, where: CodeRange) -> None:
        """Report `node` (not part of the tree) at `where`."""
        self._placed[id(node)] = where

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    @functools.cached_property
    def top_level(self) -> dict[int, int]:
        """id(node) -> the index of the top-level statement it is in, for every node (walked once, on need)."""
        return {id(node): i for i, statement in enumerate(self.module.body) for node in descendants(statement)}

    @functools.cached_property
    def text(self) -> str:
        """The module's source as libcst gives it back (generated once: each fix's regions compare with it)."""
        return self.module.code


from fsdp_unpatch.config.options import Options  # noqa: E402,F401 (defined apart: the command line builds it without libcst)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Analyzer:
    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        catalog: Catalog,
        options: Options,
        excerpt: Optional[Excerpt] = None,
        linked: Optional[Mapping[str, str]] = None,
    ):
        self.catalog = catalog
        self.options = options
        table = ImportTable(module_name, is_package, linked)
        self.result = FileAnalysis(module=module, module_name=module_name, facts=collect(module, table))
        if excerpt is not None:  # uses in the statements held aside count (the import clean-up reads them)
            self.result.facts.name_uses.update(excerpt.hidden.uses)
            self.result.file_line = excerpt.file_line
            self.result.hidden = excerpt.hidden
        self.judge = SiteJudge(
            module, module_name, self.facts, catalog, options, self.result.code, self.first_compared_line
        )
        self.removed_sites: dict[int, Planned] = {}  # id(RawInstall.removable) -> its finding
        # What each replacement function was proven to be (id of the function -> its evidence).
        self.proofs: dict[int, fingerprint.Evidence] = {}
        # Replacement functions whose install sites stay: their body is left exactly as it is.
        self.kept_replacements: set[int] = set()
        self.verdicts: dict[int, scoping.Verdict] = {}  # id(install) -> override or not (set by `run`)
        # Replacements whose install sites all go but that the file names elsewhere too: name -> their sites.
        self.held: dict[str, list[tuple[RawInstall, Planned]]] = {}

    @property
    def facts(self) -> Facts:
        return self.result.facts

    def first_compared_line(self, function: cst.FunctionDef) -> int:
        """The file line of the first line of `code(function)`: the blank and comment lines above its `def`."""
        return self.result.position(function).start.line - len(function.leading_lines)

    def add(self, planned: Planned) -> Planned:
        self.result.planned.append(planned)
        return planned

    # install sites --------------------------------------------------------------------------------
    def classify_install(self, install: RawInstall, pending: dict[str, list[tuple[RawInstall, Planned]]]) -> None:
        """Decide the site once (`semantic/sites.py`), and hand the verdict to the rule that owns its kind."""
        if install.attribute == "__code__":
            swap = overrides.code_swap(install, self.facts, self.catalog, self.result.code)
            if swap is not None:
                self.add(Planned(swap[0], swap[1], swap[2], swap[3]))
            return
        verdict = self.judge.verdict(install)
        if verdict is None:
            return
        if verdict.comparison is not None and verdict.kind in ("proven", "too_old"):
            function = self.judge.replacement_function(install)
            self.proofs[id(function)] = verdict.comparison.evidence
        if verdict.replacement_kept:
            function = self.judge.replacement_function(install)
            if function is not None:
                self.kept_replacements.add(id(function))
        planned = self.add(SITE_REPORTS[verdict.kind](install, verdict))
        if verdict.kind == "proven":
            self.removed_sites[id(install.removable)] = planned
            assert isinstance(install.value, cst.Name)
            pending.setdefault(install.value.value, []).append((install, planned))

    # replacements and installers ------------------------------------------------------------------
    def merge_chained(self, pending: dict[str, list[tuple[RawInstall, Planned]]]) -> None:
        """`a.x = b.y = f` with every target removed: delete the statement, not each target."""
        by_statement: dict[int, list[RawInstall]] = {}
        for install in self.facts.installs:
            if install.partial:
                by_statement.setdefault(id(install.statement), []).append(install)
        for installs in by_statement.values():
            if not all(id(i.removable) in self.removed_sites for i in installs):
                continue
            planned = [self.removed_sites.pop(id(i.removable)) for i in installs]
            for install, finding in zip(installs, planned):
                assert install.statement is not None  # grouped by it
                finding.edits = [Edit(install.statement)]
                install.removable = install.statement
            self.removed_sites[id(installs[0].statement)] = planned[0]

    def plan_replacements(self, pending: dict[str, list[tuple[RawInstall, Planned]]]) -> None:
        """A replacement goes when every reference to it is an install site that goes."""
        for name, sites in pending.items():
            function = self.judge.replacement_function(sites[0][0])
            if function is None or any(install.partial for install, _ in sites):
                continue
            if self.uses(name) != len(sites):
                self.held[name] = sites  # named elsewhere too: `plan_freed_replacements` decides
                continue
            self.plan_replacement(name, function, sites, [])

    def uses(self, name: str) -> int:
        return self.facts.name_uses[name] + (name in self.facts.dunder_all)

    def plan_replacement(
        self,
        name: str,
        function: cst.FunctionDef,
        sites: list[tuple[RawInstall, Planned]],
        also: list[Planned],
    ) -> None:
        """Delete the replacement with its install sites (and `also`: the fixes that delete its other uses)."""
        proof = self.proofs.get(id(function))
        first_target = sites[0][1].target
        matches = (
            f"{collective_override.proof(self.catalog.targets[first_target], proof)}"
            if proof and first_target is not None and first_target in self.catalog.targets
            else "is the upstream FSDP2 function plus the NPU tweak only"
        )
        planned = self.add(
            Planned(
                OVERRIDE_REPLACEMENT.code,
                function.name,
                OVERRIDE_REPLACEMENT.message("freed", name=name, proof=matches, named_in=self.spelled(also))
                if also
                else OVERRIDE_REPLACEMENT.message(name=name, proof=matches),
                sites[0][1].target,
                edits=[Edit(function)],
                requires=[p for _, p in sites] + also,
            )
        )
        self.result.replacements[name] = planned

    def spelled(self, fixes: list[Planned]) -> str:
        """What `fixes` delete, for a message: `_apply_fsdp_patch` (a function by its name), else the code."""
        return ", ".join(
            f"`{p.node.value}`" if isinstance(p.node, cst.Name) else f"`{_short(self.result.code(p.node), 40)}`"
            for p in fixes
        )

    def plan_freed_replacements(self) -> None:
        """A replacement the file names elsewhere only inside code the fix deletes (the installer whose guard
        tests for it, another function that goes) goes too, requiring those deletions. Each one planned may
        free another: planned until nothing new is freed, so one fix does what a second would."""
        while self.held:
            deleting = [p for p in self.result.planned if _deleted_nodes(p)]
            inside = count_names(_outermost([n for p in deleting for n in _deleted_nodes(p)]))
            freed = [name for name in self.held if self.uses(name) == inside[name]]
            if not freed:
                return
            for name in freed:
                sites = self.held.pop(name)
                function = self.judge.replacement_function(sites[0][0])
                assert function is not None  # held only with one
                own = {id(p) for _, p in sites}
                also = [p for p in deleting if id(p) not in own and count_names(_outermost(_deleted_nodes(p)))[name]]
                self.plan_replacement(name, function, sites, also)

    def plan_installers(self) -> None:
        seen: set[int] = set()
        for install in self.facts.installs:
            function = install.function
            if function is None or id(function) in seen or id(install.removable) not in self.removed_sites:
                continue
            seen.add(id(function))
            qualified = f"{self.result.module_name}.{function.name.value}"
            # An installer `__all__` exports is public: deleting it breaks `import *` and importers out of reach.
            exported = function.name.value in self.facts.dunder_all
            removable = self.is_top_level(function) and self.left_empty(function) and not exported
            installer = Installer(function, qualified, removable)
            if removable:
                sites = [
                    p
                    for i in self.facts.installs
                    if i.function is function
                    for p in [self.removed_sites.get(id(i.removable))]
                    if p is not None
                ]
                installer.finding = self.add(
                    Planned(
                        PATCH_INSTALLER.code,
                        function.name,
                        PATCH_INSTALLER.message(name=function.name.value),
                        None,
                        edits=[Edit(function)],
                        requires=sites,
                    )
                )
            self.result.installers.append(installer)

    def is_top_level(self, function: cst.FunctionDef) -> bool:
        if id(function) in self.facts.methods:
            return False  # a method is called through objects the analysis cannot follow
        return any(
            node is function and parent is None for node, parent in self.facts.functions.get(function.name.value, [])
        )

    def left_empty(self, function: cst.FunctionDef) -> bool:
        removed = {key for key in self.removed_sites}
        globals_declared = {
            name.name.value
            for statement in _walk_statements(function.body)
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
            if isinstance(small, cst.Global)
            for name in small.names
        }
        return all(_trivial(s, removed, globals_declared) for s in body_statements(function.body))

    # same-device copies ---------------------------------------------------------------------------
    def kept_code(self) -> set[int]:
        """ids of every node inside code that stays: replacements of install sites that stay, what kept
        installers and kernel registrations name, and the module's functions those call, transitively."""
        top_level = {
            name: node for name, defs in self.facts.functions.items() for node, parent in defs if parent is None
        }
        roots: list[cst.CSTNode] = []
        for install in self.facts.installs:
            if id(install.removable) in self.removed_sites:
                continue
            roots.append(install.value)
            if install.function is not None and not any(
                i.node is install.function and i.removable for i in self.result.installers
            ):
                roots.append(install.function)
        for registration in overrides.kernel_registrations(self.facts):
            roots.append(registration.call)
            roots.extend(f for call, f in self.facts.decorated if call is registration.call)
            if registration.function is not None:
                roots.append(registration.function)
        kept: set[int] = set()
        seen_functions: set[int] = set()
        while roots:
            root = roots.pop()
            for node in descendants(root):
                kept.add(id(node))
                if isinstance(node, cst.Name) and node.value in top_level:
                    function = top_level[node.value]
                    if id(function) not in seen_functions:
                        seen_functions.add(id(function))
                        roots.append(function)
        return kept

    def plan_copies(self) -> None:
        removed_functions = {id(p.edits[0].node) for p in self.result.replacements.values()}
        kept: Optional[set[int]] = None
        # An `elif` is the `else` of the `if` above it: collapsing it alone would run the copy on that branch too.
        elifs = {id(node.orelse) for node, _ in self.facts.ifs if isinstance(node.orelse, cst.If)}
        for node, function in self.facts.ifs:
            if function is not None and (id(function) in removed_functions or id(function) in self.kept_replacements):
                continue  # goes with its function, or stays with it as it is
            if id(node) in elifs:
                continue
            match = same_device_copy(node, self.result.code, self.qualify_in(function))
            if match is None:
                continue
            kept = self.kept_code() if kept is None else kept
            if id(node) in kept:
                continue  # code that stays is left byte-identical
            native = match.native_call.with_changes(leading_lines=node.leading_lines)
            self.add(
                Planned(
                    SAME_DEVICE_COPY.code,
                    node,
                    SAME_DEVICE_COPY.message(native=_short(self.result.code(match.native_call.body[0]))),
                    "torch._foreach_copy_",
                    edits=[Edit(node, native)],
                )
            )

    def qualify_in(self, function: Optional[cst.FunctionDef]) -> Callable[[cst.BaseExpression], Optional[str]]:
        """Qualified names as seen inside `function`: a name it (or a function around it) binds is a local,
        not what the module imports under that name (`torch` as a parameter is not the torch module)."""
        parents = {id(f): parent for found in self.facts.functions.values() for f, parent in found}
        local: set[str] = set()
        while function is not None:
            try:
                parsed = ast.parse(textwrap.dedent(self.result.code(function.with_changes(leading_lines=()))))
            except SyntaxError:  # cannot tell: take every name it spells as a local
                return lambda expression: None
            local |= local_names(parsed.body[0])  # type: ignore[arg-type]
            function = parents.get(id(function))

        def qualify(expression: cst.BaseExpression) -> Optional[str]:
            name = dotted_name(expression)
            if name is not None and name.partition(".")[0] in local:
                return None
            return self.facts.table.qualify(expression)

        return qualify

    # other forms of override, and patch completeness -------------------------------------------------
    def plan_other_overrides(self) -> None:
        # FSDP2's own modules define the fsdp ops: their registrations are the native kernels, not overrides.
        # So does a vendored copy of them, whatever its path: a kernel for an op the file defines is its own.
        native = any(self.result.module_name.startswith(root + ".") for root in self.catalog.fsdp2_roots)
        defined = overrides.defined_ops(self.facts)
        for registration in overrides.kernel_registrations(self.facts):
            if registration.namespace != "fsdp" or native or (registration.namespace, registration.op) in defined:
                continue
            target = f"ops.fsdp.{registration.op}"
            kernel = (
                registration.function.value
                if isinstance(registration.function, cst.Name)
                else next((f.name.value for call, f in self.facts.decorated if call is registration.call), None)
            )
            message = overrides.registration_message(
                registration, self.catalog.targets.get(target), self.options.target_torch, self.result.code, kernel
            )
            self.add(Planned(KERNEL_REGISTRATION.code, registration.call, message, target))
        for code, node, message, patched in overrides.patches_in_tests(self.facts, self.catalog, self.result.code):
            self.add(Planned(code, node, message, patched))

    def relative(self, qualified: str) -> str:
        """A qualified name under an FSDP2 root, without the root."""
        for root in self.catalog.fsdp2_roots:
            if qualified.startswith(root + "."):
                return qualified[len(root) + 1 :]
        return qualified

    def plan_completeness(self) -> None:
        for install in self.facts.installs:
            if install.attribute == "__code__" or not self.verdicts.get(id(install), scoping.Verdict(True)).override:
                continue
            qualified, target = self.judge.resolve_target(install)
            if qualified is not None and target is not None:
                self.result.patched.append(completeness.Patched(install, qualified, target))
        patched = self.result.patched
        for item in completeness.incomplete_by_name(patched, self.catalog, self.options.releases):
            if scoping.reloaded_after(self.facts, self.catalog, item.site.install, item.missing, self.line):
                continue  # the reload copied the patch into the by-name binding
            planned = self.add(
                Planned(STALE_BY_NAME_IMPORT.code, item.site.install.report, item.message, item.site.target)
            )
            self.result.incomplete.append((item, planned))
        for earlier, later in completeness.redundant_class_patches(patched, dict(self.catalog.classes)):
            self.add(
                Planned(
                    REDUNDANT_CLASS_PATCH.code,
                    later.install.report,
                    REDUNDANT_CLASS_PATCH.message(
                        later=self.relative(later.qualified),
                        earlier=self.relative(earlier.qualified),
                        line=self.result.position(earlier.install.report).start.line,
                    ),
                    later.target,
                )
            )
        for code, site, message in completeness.op_default_problems(patched):
            # Moot when the fix deletes the site: the order of its assignments no longer matters.
            moot_with = self.removed_sites.get(id(site.install.removable))
            self.add(Planned(code, site.install.report, message, site.target, moot_with=moot_with))

    def line(self, node: cst.CSTNode) -> int:
        return self.result.position(node).start.line

    def module_aliases(self) -> dict[str, str]:
        """Module-level aliases and imports of FSDP2 modules and classes, which other files may import."""
        table = self.facts.table
        module_level = {local for local, _, function in self.facts.aliases if function is None} | set(table.sources)
        found = {}
        for local in module_level:
            qualified = table.bindings.get(local)
            target = target_id(qualified, self.catalog) if qualified else None
            if qualified in self.catalog.fsdp2_roots or (
                target is not None
                and is_fsdp2_private(target, self.catalog)
                and (target.count(".") == 0 or target.split(".")[-1] in self.catalog.classes)
            ):
                found[local] = qualified
        return found  # type: ignore[return-value]

    def run(self) -> FileAnalysis:
        self.result.module_aliases = self.module_aliases()
        pending: dict[str, list[tuple[RawInstall, Planned]]] = {}
        # New attributes and restores of saved originals are no overrides (scoping.py).
        self.verdicts = scoping.verdicts(self.facts, self.catalog, load_symbols(), self.judge.fsdp2_target, self.line)
        for install in self.facts.installs:
            verdict = self.verdicts.get(id(install), scoping.Verdict(True))
            if not verdict.override:
                continue
            before = len(self.result.planned)
            self.classify_install(install, pending)
            for planned in self.result.planned[before:]:
                planned.message += verdict.note(planned.message, install.attribute)
        self.plan_other_overrides()
        self.plan_completeness()
        self.merge_chained(pending)
        self.plan_replacements(pending)
        self.plan_installers()
        self.plan_freed_replacements()
        self.plan_copies()
        for check in file_checks():  # rules whose module plans them (`Rule.check`)
            self.result.planned.extend(check(self.result, self.catalog, self.options))
        removable = {i.qualified: i.finding for i in self.result.installers if i.removable}
        plan_installer_calls(self.result, removable)
        return self.result


def _deleted_nodes(planned: Planned) -> list[cst.CSTNode]:
    """The nodes a fix deletes (not those it replaces with other code, nor imports it adds)."""
    return [e.node for e in planned.edits if type(e) is Edit and e.replacement is None]


def _outermost(nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """`nodes` without those inside another of them (a site inside the installer that is deleted whole)."""
    inner = {id(d) for node in nodes for d in descendants(node) if d is not node}
    unique = {id(node): node for node in nodes if id(node) not in inner}
    return list(unique.values())


def _walk_statements(block: cst.BaseSuite):
    for statement in body_statements(block):
        yield statement
        for attribute in ("body", "orelse", "finalbody"):
            child = getattr(statement, attribute, None)
            if isinstance(child, cst.BaseSuite):
                yield from _walk_statements(child)
            elif isinstance(child, (cst.Else, cst.Finally, cst.If)):
                yield from _walk_statements(child.body)


def _trivial(statement: cst.BaseStatement, removed: set[int], flags: set[str]) -> bool:
    """Nothing an installer does once its install sites are gone: docstrings, `pass`, flags, `return`."""
    if id(statement) in removed or is_docstring(statement):
        return True
    if isinstance(statement, cst.SimpleStatementLine):
        return all(_trivial_small(s, removed, flags) for s in statement.body)
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        rest = (
            True
            if orelse is None
            else (
                _trivial(orelse, removed, flags)
                if isinstance(orelse, cst.If)
                else all(_trivial(s, removed, flags) for s in body_statements(orelse.body))
            )
        )
        return rest and all(_trivial(s, removed, flags) for s in body_statements(statement.body))
    return False


def _trivial_small(small: cst.BaseSmallStatement, removed: set[int], flags: set[str]) -> bool:
    if id(small) in removed or isinstance(small, (cst.Pass, cst.Global, cst.Nonlocal)):
        return True
    if isinstance(small, cst.Return):
        return small.value is None
    if isinstance(small, cst.Assign):
        return all(isinstance(t.target, cst.Name) and t.target.value in flags for t in small.targets)
    return False


def plan_installer_calls(analysis: FileAnalysis, installers: dict[str, Optional[Planned]]) -> None:
    """Delete calls and imports of installers that the run removes (in this file or another one)."""
    if not installers:
        return
    for call in analysis.facts.calls:
        qualified = analysis.table.qualify(call.call.func)
        if qualified in installers:
            _plan_call(analysis, call, installers[qualified])


def _plan_call(analysis: FileAnalysis, call: RawCall, installer: Optional[Planned]) -> None:
    analysis.planned.append(
        Planned(
            INSTALLER_CALL.code,
            call.call,
            INSTALLER_CALL.message(call=_short(analysis.code(call.call))),
            None,
            edits=[Edit(call.statement)],
            requires=[installer] if installer is not None else [],
        )
    )


def analyze_module(
    module: cst.Module,
    module_name: str,
    is_package: bool,
    catalog: Catalog,
    options: Options,
    excerpt: Optional[Excerpt] = None,
    linked: Optional[Mapping[str, str]] = None,
) -> FileAnalysis:
    """The findings of one module; `excerpt`: the module is the excerpt of a large file (`excerpt.py`);
    `linked`: names other files of the run bind to FSDP2 (`ImportTable.linked`)."""
    return _Analyzer(module, module_name, is_package, catalog, options, excerpt, linked).run()
