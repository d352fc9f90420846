"""The findings of a file that gets no fix, built from the `ast` model: no libcst tree for it.

A file that the ast tier (`screen.py`) keeps may still hold only overrides that stay (review or keep: FSU101,
FSU201), each perhaps scoped by a restore (torch's `common_fsdp.py` test helpers). For such a file the
libcst analysis would only say what the `ast` model already decides: which install sites override what
(`semantic/ast_scoping.py`), the verdict on each (`AstJudge`), and the rules that check a site say the
finding. So the file's findings are built here, with the same codes, messages, targets, positions and order
as `plan.analyze_module` gives them, and no fix.

This holds only when the model shows that nothing else can happen in the file; anything else, and the
answer is None (undecided: parse it with libcst, which is always correct):
- of the shapes the registered rules declare make a file their candidate (`registry.Candidate`, tested by
  the ast tier as it compiles them), the file may hold plain stores only: every clause of the ast tier but
  attribute stores is clear, and every store that may reach FSDP2 is a plain install site of the model
  (`owner.attr = value`), so no rule that looks for another shape can fire (indirect installs, test
  patches, kernels, subclasses, module entries, same-device copies, patch names, suppressions, the words
  and calls rules declare);
- no rule that declares plain stores (`fsdp2-store`) checks only whole modules or runs, which the model does
  not run (`Screen.model_stands_in`): a rule the scaffold makes so is handed every such file by libcst;
- no site swaps a `__code__`, none is proven or too old (those get fixes), no site rule's finding has edits;
- the rules that check a file's patches together, or its calls of the installers that go (none goes here),
  find nothing (they would read libcst facts);
- no module-level name of a module outside torch binds an FSDP2 module or class (other files could patch
  FSDP2 through it: `run/module_aliases.py`); the model has no module-level fallbacks to resolve.
What other files of the run change stays with the engine: it parses such a file after all when the run
links it with analysed files (`run/engine.py`).
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Optional

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.analysis.screen import screen_for
from fsdp_unpatch.analysis.source import MAX_PARSE_BYTES
from fsdp_unpatch.analysis.subjects import Patches, Site
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.files.reading import declared_encoding, decode_error
from fsdp_unpatch.project.identity import module_name as module_name_of
from fsdp_unpatch.semantic import ast_scoping
from fsdp_unpatch.semantic.ast_sites import AstJudge
from fsdp_unpatch.semantic.model import InstallSite, SemanticModel, Span, build
from fsdp_unpatch.semantic.names import target_id
from fsdp_unpatch.semantic.scope_verdict import Verdict

KEPT_KINDS = frozenset({"unproven", "unknown", "reviewed", "outside_enhance", "enhance", "configured_keep"})


@dataclass(frozen=True)
class AstFindings:
    """What the engine needs of such a file: its findings where the model places them (columns from 0, in
    characters, as libcst counts them), and the FSDP2 targets it patches (a cross-file key, `run/alone.py`)."""

    planned: list[tuple[Planned, Span]]
    patched: frozenset[str]


class Undecided(Exception):
    """The model does not hold what a rule reads: the file is left to the planner."""


class _Node:
    """Stands for the libcst node a finding is reported at: the model placed it."""


class _Install:
    """Stands for an install site (`collect.RawInstall`) where a rule reads one: what the rules that check
    sites and patches read, and Undecided for anything else."""

    def __init__(self, site: InstallSite) -> None:
        self.report = self.removable = _Node()
        self.attribute = site.attribute
        self.via_setattr = site.via_setattr

    def __getattr__(self, name: str) -> NoReturn:
        raise Undecided(f"a rule reads `{name}` of an install site")


class _Subject:
    """Stands for the analysed module (`subjects.ModuleSubject`) where a rule reads one: its name only."""

    indirect_installs = None

    def __init__(self, module_name: str) -> None:
        self.module_name = module_name

    def __getattr__(self, name: str) -> NoReturn:
        raise Undecided(f"a rule reads `{name}` of the module")


@dataclass(frozen=True)
class _Patched:
    """`patched.Patched` for a site of the model."""

    install: Any
    qualified: str
    target: str


def findings_on_ast(data: bytes, path: Path, catalog: Catalog, options: Options) -> Optional[AstFindings]:
    """The findings of the file `data` (read from `path`, analysed alone) when it gets no fix and the model
    decides all of them; None when undecided."""
    screen = screen_for(catalog)
    if not screen.model_stands_in:
        return None  # a rule of a kind the model does not run declares plain stores: libcst runs it
    if len(data) > MAX_PARSE_BYTES or b"\0" in data or any(name in data for name in screen.patch_names):
        return None
    lowered = data.lower()
    if any(word in lowered for word in screen.comment_words) or decode_error(data) is not None:
        return None
    module_name, is_package = module_name_of(path, real=True)
    try:
        if declared_encoding(data) != "utf-8":
            return None  # libcst's own name for the encoding is what a result carries: left to it
        text = data.decode("utf-8")
        with warnings.catch_warnings(), no_cyclic_gc():
            warnings.simplefilter("ignore")
            tree = compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            reaching = screen.reaching_stores(tree, data, module_name, is_package)
            if reaching is None:
                return None  # another clause of the ast tier holds
            model = build(text, module_name, is_package)
    except Exception:  # a syntax error, too deep, an encoding: libcst says what it is
        return None
    if not _only_plain_sites(reaching, screen, model, module_name, catalog):
        return None
    try:
        return _decide(model, text, module_name, catalog, options)
    except Undecided:
        return None


def _only_plain_sites(
    reaching: tuple[Counter, dict[str, set[str]]], screen: Any, model: SemanticModel, module_name: str, catalog: Catalog
) -> bool:
    """Whether every finding the file can hold comes from a plain install site (the module doc), given the
    stores that may reach FSDP2 (`Screen.reaching_stores`)."""
    if model.has_fallbacks:
        return False
    stores, bindings = reaching
    plain = Counter(
        (site.owner_name, site.attribute)
        for site in model.installs
        if not site.via_setattr
        and site.owner_name is not None
        and screen.store_reaches(site.owner_name, site.attribute, bindings)
    )
    if plain != stores or any(site.attribute == "__code__" for site in model.installs):
        return False
    if module_name == "torch" or module_name.startswith("torch."):
        return True  # torch's re-exports are torch's own (`run/module_aliases.py`)
    table = model.table
    module_level = {local for local, _, function in model.aliases if function is None} | set(table.sources)
    for local in module_level:
        qualified = table.bindings.get(local)
        if qualified is not None and (qualified in catalog.fsdp2_roots or target_id(qualified, catalog) is not None):
            return False  # may bind a name other files patch FSDP2 through
    return True


def _never(torch: Version, imports: bool) -> NoReturn:
    raise Undecided("module-level fallbacks")  # `_only_plain_sites` leaves such a module to libcst


def _decide(
    model: SemanticModel, text: str, module_name: str, catalog: Catalog, options: Options
) -> Optional[AstFindings]:
    """`plan.plan_install_sites` and `plan.plan_completeness` on the model."""
    judge = AstJudge(model, module_name, catalog, options, _never)
    scoped = ast_scoping.verdicts(model, text, catalog, load_symbols(), judge.fsdp2_target)
    subject = _Subject(module_name)
    planned: list[tuple[Planned, Span]] = []
    patched: list[_Patched] = []
    for site, scope in zip(model.installs, scoped):
        scope = scope or Verdict(True)
        if not scope.override:
            continue
        verdict = judge.verdict(site)
        if verdict is None:
            continue
        if verdict.kind not in KEPT_KINDS:
            return None  # proven or too old: a fix (or a note about one) that libcst writes
        for found in dispatch("site", Site(_Install(site), verdict), subject, catalog, options=options):  # type: ignore[arg-type]
            if found.edits or found.requires or found.moot_with is not None:
                return None
            found.message += scope.note(found.message, site.attribute)
            planned.append((found, site.report))
    for site, scope in zip(model.installs, scoped):
        if not (scope or Verdict(True)).override:
            continue
        qualified, target = judge.resolve_target(site)
        if qualified is not None and target is not None:
            patched.append(_Patched(_Install(site), qualified, target))
    patches = Patches(patched, {}, [])  # type: ignore[arg-type]
    if any(True for _ in dispatch("patches", patches, subject, catalog, options=options)):
        return None  # a completeness finding: its rules read libcst facts
    # no installer goes (a proven site, which frees one, is left to libcst above): the calls of none
    if any(True for _ in dispatch("installer-calls", subject, {}, catalog, options=options)):
        return None
    return AstFindings(planned, frozenset(p.target for p in patched))
