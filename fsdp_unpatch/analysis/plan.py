"""Per-file analysis: find the parts of FSDP2 monkey-patches and plan their fixes (the planner, one module).

A patch has parts — install sites, the replacement functions they install, the installer that holds
them, the installer's calls — and the analysis sees them as one thing: a replacement is removed only
with all its install sites, an installer only when nothing is left for it to install.

`analyze_module` handles one file; what other files of the run decide (calls of an installer that is
removed elsewhere) is added by the run's linking step. The steps, in the order they run over a shared
`PlanState`, each a section below: install sites (each decided once by `semantic/sites.py`), patch
completeness, replacements, installers, same-device copies, then the rules that check a module themselves
and the calls of the installers that go. Each step decides what the engine must decide (which site is
proven, which replacement and installer go with it) and hands the subject to the rules of its kind through
the one dispatcher (`dispatch.py`); no step imports a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional, Union

import libcst as cst

from fsdp_unpatch.analysis import copies, indirect_installs, site_judging
from fsdp_unpatch.analysis.blocks import body_statements
from fsdp_unpatch.analysis.collect import Facts, RawInstall, collect, count_names
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.excerpt import Excerpt
from fsdp_unpatch.analysis.file_analysis import FileAnalysis, Installer
from fsdp_unpatch.analysis.patched import Patched
from fsdp_unpatch.analysis.patterns import descendants, is_docstring, single_call
from fsdp_unpatch.analysis.planned import Edit, Located, Planned
from fsdp_unpatch.analysis.site_judging import AnyJudge
from fsdp_unpatch.analysis.standing import node_at
from fsdp_unpatch.analysis.subjects import Copy, InstallerToGo, Patches, Replacement, Site
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.fingerprint import Evidence
from fsdp_unpatch.semantic.names import ImportTable, is_fsdp2_private, target_id
from fsdp_unpatch.semantic.scope_verdict import Verdict

_NOQA = re.compile(rb"noqa", re.IGNORECASE)

# What the rest of the tool imports from here.
__all__ = ["Edit", "FileAnalysis", "Installer", "Options", "Planned", "analyze_module"]


def analyze_module(
    module: cst.Module,
    module_name: str,
    is_package: bool,
    catalog: Catalog,
    options: Options,
    excerpt: Optional[Excerpt] = None,
    linked: Optional[Mapping[str, str]] = None,
    data: Optional[bytes] = None,
) -> FileAnalysis:
    """The findings of one module; `excerpt`: the module is the excerpt of a large file (`excerpt.py`);
    `linked`: names other files of the run bind to FSDP2 (`ImportTable.linked`); `data`: the bytes `module`
    was parsed from (None: its code is generated)."""
    table = ImportTable(module_name, is_package, linked)
    result = FileAnalysis(module=module, module_name=module_name, facts=collect(module, table))
    result.spells_noqa = None if data is None else _NOQA.search(data) is not None
    result.data = data
    if excerpt is not None:  # uses in the statements held aside count (the import clean-up reads them)
        result.facts.name_uses.update(excerpt.hidden.uses)
        result.file_line = excerpt.file_line
        result.file_column = excerpt.file_column
        result.file_text = excerpt.file_text
        result.hidden = excerpt.hidden

    judge = site_judging.planner_judge(result, is_package, linked, catalog, options)
    state = PlanState(result, catalog, options, judge)
    result.module_aliases = module_aliases(result, catalog)
    plan_install_sites(state)
    plan_completeness(state)
    merge_chained(state)
    plan_replacements(state)
    plan_installers(state)
    plan_freed_replacements(state)
    plan_copies(state)
    result.planned.extend(dispatch("module", result, catalog, options=options))
    removable = {i.qualified: i.finding for i in result.installers if i.removable}
    result.planned.extend(dispatch("installer-calls", result, removable, catalog, options=options))
    return result


def module_aliases(result: FileAnalysis, catalog: Catalog) -> dict[str, str]:
    """Module-level aliases and imports of FSDP2 modules and classes, which other files may import."""
    table = result.facts.table
    module_level = {local for local, _, function in result.facts.aliases if function is None} | set(table.sources)
    found = {}
    for local in module_level:
        qualified = table.bindings.get(local)
        target = target_id(qualified, catalog) if qualified else None
        if qualified in catalog.fsdp2_roots or (
            target is not None
            and is_fsdp2_private(target, catalog)
            and (target.count(".") == 0 or target.split(".")[-1] in catalog.classes)
        ):
            found[local] = qualified
    return found  # type: ignore[return-value]


# --- What the steps share: the analysis they fill, and what earlier steps decided ---

# Install sites by the name of the replacement they install, each with its finding.
Sites = dict[str, list[tuple[RawInstall, Planned]]]


@dataclass
class PlanState:
    result: FileAnalysis
    catalog: Catalog
    options: Options
    judge: AnyJudge
    removed_sites: dict[int, Planned] = field(default_factory=dict)  # id(RawInstall.removable) -> its finding
    # What each replacement function was proven to be (id of the function -> its evidence).
    proofs: dict[int, Evidence] = field(default_factory=dict)
    # Replacement functions whose install sites stay: their body is left exactly as it is.
    kept_replacements: set[int] = field(default_factory=set)
    verdicts: dict[int, Verdict] = field(default_factory=dict)  # id(install) -> override or not
    # The proven sites, by the replacement they install: the replacement may go with them.
    pending: Sites = field(default_factory=dict)
    # Replacements whose install sites all go but that the file names elsewhere too.
    held: Sites = field(default_factory=dict)

    @property
    def facts(self) -> Facts:
        return self.result.facts

    def add(self, planned: Planned) -> Planned:
        self.result.planned.append(planned)
        return planned

    def line(self, node: Union[cst.CSTNode, Located]) -> int:
        return self.result.position(node).start.line


# --- Install sites ---
# Install sites: each decided once (`semantic/sites.py`), its verdict said by the rules that check sites (the
# dispatcher: FSU001 for a proven copy, FSU101, FSU102, FSU201 for the others, FSU104 for a `__code__` swap, which
# no verdict decides). A proven site is deleted (FSU001); the others stay, and so does the body of the function
# they install. A proven site whose target the file also installs in a shape no site stands for
# (`indirect_installs.py`) stays too (FSU101): deleting it would leave the override installed.


def plan_install_sites(state: PlanState) -> None:
    """Every site that overrides something (new attributes and restores of saved originals do not:
    `semantic/ast_scoping.py`), with what scoping adds to its message (the releases it overrides in, its
    restores). In a file the model does not judge (`site_judging.Unjudged`) every site counts as an override."""
    state.verdicts = state.judge.scoping(state.facts.installs)
    elsewhere: dict[str, tuple[str, int]] = {}
    if state.facts.installs:
        for found in indirect_installs.found_in(state.result, state.catalog):
            elsewhere.setdefault(found.target, (found.how, state.line(found.at)))
    for install in state.facts.installs:
        verdict = state.verdicts.get(id(install), Verdict(True))
        if not verdict.override:
            continue
        before = len(state.result.planned)
        plan_site(state, install, elsewhere)
        for planned in state.result.planned[before:]:
            planned.message += verdict.note(planned.message, install.attribute)


def plan_site(state: PlanState, install: RawInstall, elsewhere: Mapping[str, tuple[str, int]]) -> None:
    """`elsewhere`: target -> how and where the file also installs it in a shape no site stands for."""
    if install.attribute == "__code__":
        state.result.planned.extend(said(state, Site(install, None)))
        return
    verdict = state.judge.verdict(install)
    if verdict is None:
        return
    also = elsewhere.get(verdict.target)
    if verdict.kind == "proven" and also:
        verdict = replace(verdict, kind="unproven", reason="installed-elsewhere", elsewhere=also)
    if verdict.comparison is not None and verdict.kind in ("proven", "too_old"):
        function = state.judge.replacement_function(install)
        state.proofs[id(function)] = verdict.comparison.evidence
    if verdict.replacement_kept:
        function = state.judge.replacement_function(install)
        if function is not None:
            state.kept_replacements.add(id(function))
    for planned in said(state, Site(install, verdict)):
        state.add(planned)
        if verdict.kind == "proven":  # the site goes (FSU001): its replacement may go with it
            state.removed_sites[id(install.removable)] = planned
            assert isinstance(install.value, cst.Name)
            state.pending.setdefault(install.value.value, []).append((install, planned))


def said(state: PlanState, site: Site) -> list[Planned]:
    """What the rules that check sites say about `site`."""
    return list(dispatch("site", site, state.result, state.catalog, options=state.options))


def merge_chained(state: PlanState) -> None:
    """`a.x = b.y = f` with every target removed: delete the statement, not each target."""
    by_statement: dict[int, list[RawInstall]] = {}
    for install in state.facts.installs:
        if install.partial:
            by_statement.setdefault(id(install.statement), []).append(install)
    for installs in by_statement.values():
        if not all(id(i.removable) in state.removed_sites for i in installs):
            continue
        planned = [state.removed_sites.pop(id(i.removable)) for i in installs]
        for install, finding in zip(installs, planned):
            assert install.statement is not None  # grouped by it
            finding.edits = [Edit(install.statement)]
            install.removable = install.statement
        state.removed_sites[id(installs[0].statement)] = planned[0]


# --- Patch completeness ---
# What the file's overrides patch, handed to the rules that check a file's patches together (the dispatcher): a
# by-name binding left stale (FSU401), a class patched twice (FSU402), an op's `.default` order (FSU403, FSU404).
# (Kernel registrations and patches in tests are their rules' own checks, FSU103 and FSU202.)


def plan_completeness(state: PlanState) -> None:
    """What the file's overrides patch (the run's completeness rules read it), and what the rules say of
    it here."""
    for install in state.facts.installs:
        if install.attribute == "__code__" or not state.verdicts.get(id(install), Verdict(True)).override:
            continue
        qualified, target = state.judge.resolve_target(install)
        if qualified is not None and target is not None:
            state.result.patched.append(Patched(install, qualified, target))
    patches = Patches(state.result.patched, state.removed_sites, state.result.incomplete)
    state.result.planned.extend(dispatch("patches", patches, state.result, state.catalog, options=state.options))


# --- Replacements ---
# Replacements: the function a proven site installs goes with all its install sites, and a replacement the file
# names elsewhere only inside code the fix deletes goes too. Which replacement goes, with which sites and fixes, is
# decided here, until nothing new is freed; the rule that checks a replacement (FSU002, through the dispatcher)
# turns each decision into its finding.


def plan_replacements(state: PlanState) -> None:
    """A replacement goes when every reference to it is an install site that goes."""
    for name, sites in state.pending.items():
        function = state.judge.replacement_function(sites[0][0])
        if function is None or any(install.partial for install, _ in sites):
            continue
        if state.result.registered_by_decorator(function):
            continue  # its kernel registration stays (FSU103, review), and the function with it
        if uses(state, name) != len(sites):
            state.held[name] = sites  # named elsewhere too: `plan_freed_replacements` decides
            continue
        plan_replacement(state, name, function, sites, [])


def uses(state: PlanState, name: str) -> int:
    return state.facts.name_uses[name] + state.result.exports.lists(name)


def plan_replacement(
    state: PlanState,
    name: str,
    function: cst.FunctionDef,
    sites: list[tuple[RawInstall, Planned]],
    also: list[Planned],
) -> None:
    """Delete the replacement with its install sites (and `also`: the fixes that delete its other uses)."""
    replacement = Replacement(name, function, sites, state.proofs.get(id(function)), also)
    for planned in dispatch("replacement", replacement, state.result, state.catalog, options=state.options):
        state.add(planned)
        if planned.edits and planned.edits[0].node is function:
            state.result.replacements[name] = planned  # the finding whose fix deletes it (FSU002's), not another's


def plan_freed_replacements(state: PlanState) -> None:
    """A replacement the file names elsewhere only inside code the fix deletes (the installer whose guard
    tests for it, another function that goes) goes too, requiring those deletions. Each one planned may
    free another: planned until nothing new is freed, so one fix does what a second would."""
    while state.held:
        deleting = [p for p in state.result.planned if _deleted_nodes(p)]
        inside = count_names(_outermost([n for p in deleting for n in _deleted_nodes(p)]))
        freed = [name for name in state.held if uses(state, name) == inside[name]]
        if not freed:
            return
        for name in freed:
            sites = state.held.pop(name)
            function = state.judge.replacement_function(sites[0][0])
            assert function is not None  # held only with one
            own = {id(p) for _, p in sites}
            also = [p for p in deleting if id(p) not in own and count_names(_outermost(_deleted_nodes(p)))[name]]
            plan_replacement(state, name, function, sites, also)


def _deleted_nodes(planned: Planned) -> list[cst.CSTNode]:
    """The nodes a fix deletes (not those it replaces with other code, nor imports it adds)."""
    return [e.node for e in planned.edits if type(e) is Edit and e.replacement is None]


def _outermost(nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """`nodes` without those inside another of them (a site inside the installer that is deleted whole)."""
    inner = {id(d) for node in nodes for d in descendants(node) if d is not node}
    unique = {id(node): node for node in nodes if id(node) not in inner}
    return list(unique.values())


# --- Installers ---
# Installers: a function whose install sites all go is deleted when nothing else is left in it (decided here; the
# rule that checks an installer, FSU003, says it through the dispatcher), and so are its calls, in this file or in
# another one of the run (FSU004).


def plan_installers(state: PlanState) -> None:
    """Every function that holds a site the fix deletes; deleted itself when nothing else is left in it and it
    is a top-level function (with its `__all__` entries)."""
    seen: set[int] = set()
    for install in state.facts.installs:
        function = install.function
        if function is None or id(function) in seen or id(install.removable) not in state.removed_sites:
            continue
        seen.add(id(function))
        qualified = f"{state.result.module_name}.{function.name.value}"
        # An installer `__all__` exports goes with its entries (else `import *` fails); one named in an `__all__`
        # the module does not build at its top level stays, and so does one of a file whose `__all__` is not
        # known (no `ast` model: `exports.py`).
        name = function.name.value
        exported = state.result.exports.lists(name) and name not in state.result.dunder_all_entries
        removable = is_top_level(state, function) and left_empty(state, function) and not exported
        installer = Installer(function, qualified, removable)
        if removable:
            sites = [
                p
                for i in state.facts.installs
                if i.function is function
                for p in [state.removed_sites.get(id(i.removable))]
                if p is not None
            ]
            subject = InstallerToGo(function, sites)
            for planned in dispatch("installer", subject, state.result, state.catalog, options=state.options):
                state.add(planned)
                if planned.edits and planned.edits[0].node is function:
                    installer.finding = planned  # the finding whose fix deletes it (FSU003's), not another's
        state.result.installers.append(installer)


def is_top_level(state: PlanState, function: cst.FunctionDef) -> bool:
    if id(function) in state.facts.methods:
        return False  # a method is called through objects the analysis cannot follow
    return any(
        node is function and parent is None for node, parent in state.facts.functions.get(function.name.value, [])
    )


def left_empty(state: PlanState, function: cst.FunctionDef) -> bool:
    removed = {key for key in state.removed_sites}
    globals_declared = {
        name.name.value
        for statement in _walk_statements(function.body)
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Global)
        for name in small.names
    }
    return all(_trivial(s, removed, globals_declared) for s in body_statements(function.body))


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


# --- Same-device copies ---
# Same-device copies: `if same device: _foreach_copy_(..., non_blocking=True) else: ...` collapsed to the native
# call (the rule that checks a copy, FSU005, through the dispatcher), except in code that stays (it is left byte-
# identical).


def kept_code(state: PlanState) -> set[int]:
    """ids of every node inside code that stays: replacements of install sites that stay, what kept
    installers and kernel registrations name, and the module's functions those call, transitively."""
    top_level = {name: node for name, defs in state.facts.functions.items() for node, parent in defs if parent is None}
    roots: list[cst.CSTNode] = []
    for install in state.facts.installs:
        if id(install.removable) in state.removed_sites:
            continue
        roots.append(install.value)
        if install.function is not None and not any(
            i.node is install.function and i.removable for i in state.result.installers
        ):
            roots.append(install.function)
    roots.extend(registration_code(state.result))
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


def registration_code(result: FileAnalysis) -> list[cst.CSTNode]:
    """The libcst calls that register kernels (the `ast` model read them: `registrations.py`; each is the
    call that stands where one of them does) and the functions they decorate; a kernel the call names is in it.
    Without an `ast` model nothing is known of them: every call that may be one stays."""
    if result.model is None:
        calls = [call for call, _ in result.facts.registrations]
    else:
        registrations = result.library.kernel_registrations
        if not registrations:
            return []
        places = {result.position(r.call.at) for r in registrations}
        calls = [call for call, _ in result.facts.registrations if result.position(call) in places]
    ids = {id(call) for call in calls}
    return [*calls, *(f for call, f in result.facts.decorated if id(call) in ids)]


def plan_copies(state: PlanState) -> None:
    """Every same-device copy (found on the `ast` model: `copies.py`) outside the functions the fix deletes
    and the code that stays. Without an `ast` model none is planned."""
    result = state.result
    if result.model is None or result.model.tree is None:
        return
    found = copies.find(result.model.tree, result.node_text, state.facts.table)
    if not found:
        return
    removed_functions = {id(p.edits[0].node) for p in result.replacements.values()}
    kept: Optional[set[int]] = None
    for copy_if in found:
        standing = libcst_if(result, copy_if)
        if standing is None:
            continue
        node, function, native_line = standing
        if function is not None and (id(function) in removed_functions or id(function) in state.kept_replacements):
            continue  # goes with its function, or stays with it as it is
        kept = kept_code(state) if kept is None else kept
        if id(node) in kept:
            continue  # code that stays is left byte-identical
        native = native_line.with_changes(leading_lines=node.leading_lines)
        copy = Copy(node, native, native_line.body[0])
        result.planned.extend(dispatch("copy", copy, result, state.catalog, options=state.options))


def libcst_if(
    result: FileAnalysis, found: copies.SameDeviceIf
) -> Optional[tuple[cst.If, Optional[cst.FunctionDef], cst.SimpleStatementLine]]:
    """The libcst `If` standing where the model's copy does, the innermost function around it, and its native
    branch as a statement line of its own (a one-line suite's call gets a new line); None when none stands
    there in that shape."""
    standing = node_at(result, found.top, found.at, cst.If)
    if standing is None:
        return None
    node, function = standing
    native_place = result.position(Located(*found.native_at, *found.native_at)).start
    block = node.body if found.native_branch == 0 else getattr(node.orelse, "body", None)
    branch = single_call(block) if isinstance(block, cst.BaseSuite) else None
    if branch is None or result.position(branch[0].body[0]).start != native_place:
        return None
    return node, function, branch[0]
