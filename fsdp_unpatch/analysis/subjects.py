"""What a rule's check is handed, as small protocols and records below the rules and the planner alike.

The registry dispatches by subject kind (`rules/registry.py`, `SubjectKind`); a rule types its check with
the subject of its kind, so that no rule (and not the registry) imports the planner that calls it.
`analysis/plan.py`'s `FileAnalysis` is a `ModuleSubject`; the planner's steps hand over a `Site`, the file's
`Patches`, a `Replacement`, an `InstallerToGo`, a `Copy` (each with the `ModuleSubject` it is in, then the
catalog and the options); a run check is handed the run's `FileAnalysis` objects and yields decisions
(`analysis/decisions.py`). The run's linking hands over `Remains`, a `RemovedReference`, a file's `Tests`
and `Strings` (each with its module); the engine's results a `PlannedFile` and the run's `ProjectImports`.

A subject carries what the planner decided (which sites are proven, which replacement goes with which
sites, until nothing new is freed): the engine's decisions stay in the engine, and a rule turns one into
its finding and edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, AbstractSet, Callable, Mapping, Optional, Protocol, Sequence, Union

# The `imports` kind's subject and what its checks yield live apart, so that a run whose files all come from the
# cache, which still runs those checks, does not build the records below (`tests/test_startup_imports.py`).
from fsdp_unpatch.analysis.import_subjects import FileFinding as FileFinding
from fsdp_unpatch.analysis.import_subjects import ProjectImports as ProjectImports

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange

    from fsdp_unpatch.analysis.collect import Facts, RawInstall
    from fsdp_unpatch.analysis.exports import Exports
    from fsdp_unpatch.analysis.patched import Incomplete, Patched
    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.references import Reference
    from fsdp_unpatch.analysis.registrations import LibraryFacts
    from fsdp_unpatch.analysis.suppression import NoqaCode
    from fsdp_unpatch.analysis.test_modules import TestFacts
    from fsdp_unpatch.catalog import PatchModule
    from fsdp_unpatch.fingerprint import Evidence
    from fsdp_unpatch.semantic.model import SemanticModel
    from fsdp_unpatch.semantic.names import ImportTable
    from fsdp_unpatch.semantic.text import NodeText
    from fsdp_unpatch.semantic.verdicts import SiteVerdict

    Place = CodeRange  # where a node stands in the file, as `ModuleSubject.position` gives it


class ModuleSubject(Protocol):
    """One analysed file: its tree, its module name and the facts collected from it."""

    module: cst.Module
    module_name: str
    facts: Facts
    indirect_installs: Optional[list[Indirect]]  # `analysis/indirect_installs.py`; None: not looked for yet
    spells_noqa: Optional[bool]  # whether its bytes spell `noqa` in any case; None: not known
    model: Optional[SemanticModel]  # the `ast` model of its text; None: it could not be built

    @property
    def table(self) -> ImportTable: ...

    def code(self, node: cst.CSTNode) -> str: ...

    def text(self) -> str:
        """The text the module was parsed from (comments are read from it by tokenize)."""

    @property
    def node_text(self) -> NodeText:
        """Its text read at the `ast` model's positions (`semantic/text.py`)."""

    @property
    def library(self) -> LibraryFacts:
        """Its `torch.library` calls, read from the `ast` model of its text (`analysis/registrations.py`)."""

    @property
    def exports(self) -> Exports:
        """What its `__all__` lists, read from the `ast` model of its text (`analysis/exports.py`)."""

    @property
    def dunder_all_entries(self) -> dict[str, list[cst.CSTNode]]:
        """Name -> the libcst nodes whose deletion drops it from the module's `__all__`."""

    def position(self, node: Union[cst.CSTNode, Located]) -> CodeRange: ...


@dataclass(frozen=True)
class Indirect:
    """An override installed in a shape no install site stands for (`indirect_installs.py`)."""

    at: Located  # where what the finding points at stands: the stored-into expression, the call, the decorator
    code: str  # its source, as libcst's `code_for_node` gives it
    target: str  # the catalog id of the FSDP2 internal it overrides
    how: str  # the shape, in words: "unpacked from a tuple", "by `setattr` in a loop", ...
    loop: bool = False  # a `setattr` in a loop over rows (FSU105 reports it)
    reported: bool = False  # already reported as it is (FSU105: `setattr(FSDPParamGroup, name, fn)`)
    arguments: tuple[str, ...] = ()  # for the loop: the source of the `setattr`'s owner and name


@dataclass(frozen=True)
class Site:
    """An install site that overrides something, and the semantic model's verdict on it (`None` for a
    `__code__` swap, which no verdict decides: FSU104 reads the site itself)."""

    install: RawInstall
    verdict: Optional[SiteVerdict]


@dataclass(frozen=True)
class Patches:
    """What a file's install sites patch, in source order, and the sites the fix deletes (their finding,
    by `id(RawInstall.removable)`). `incomplete`: FSU401 records there each finding with the counterpart it
    misses, which its run check reads."""

    patched: list[Patched]
    removed_sites: Mapping[int, Planned]
    incomplete: list[tuple[Incomplete, Planned]]


@dataclass(frozen=True)
class Replacement:
    """A replacement function the planner decided goes: with all its install sites (`sites`, each with its
    finding) and `also`, the fixes that delete its other uses in the file; `proof`: what it was proven to be."""

    name: str
    function: cst.FunctionDef
    sites: list[tuple[RawInstall, Planned]]
    proof: Optional[Evidence]
    also: list[Planned] = field(default_factory=list)


@dataclass(frozen=True)
class InstallerToGo:
    """An installer left with nothing to do once the findings `sites` delete its install sites."""

    function: cst.FunctionDef
    sites: list[Planned]


@dataclass(frozen=True)
class Copy:
    """A same-device special case outside the code that stays, and the native call that replaces it."""

    node: cst.If
    native: cst.BaseStatement  # the statement put in its place
    native_call: cst.CSTNode  # the call as a message spells it


# The subjects of the run's linking (`run/linking.py`), once each file was analysed on its own: what names a
# removed patch part elsewhere.


@dataclass(frozen=True)
class Remains:
    """A patch module the catalog knows (`[patch_modules]`), for what an earlier, safe-only fix left of it in
    a file: a replacement kept while tests named it, an installer emptied while its calls waited.
    `installed`: ids of the nodes the file's findings report, as the step began; `patch_file`: the file may
    be where a patch lived (it has a patch module's name, or defines one of its replacements or enhance
    installers): an empty function of an installer's name in any other file is a stub of its own."""

    module: PatchModule
    installed: AbstractSet[int]
    patch_file: bool


@dataclass(frozen=True)
class RemovedReference:
    """A reference to a patch function the run removes (`analysis/references.py`), outside the tests that
    go; `names`: every name the file spells (a native spelling must not take one)."""

    reference: Reference
    names: set[str]


@dataclass(frozen=True)
class Tests:
    """A file's tests of the removed patch functions and its identity assertions of them
    (`analysis/test_modules.py`: `facts.going`, the tests that go, `facts.assertions`, `facts.module_left_empty`).
    The checks run in code order and record what their fixes delete: `deleted`, each test deleted whole with
    its finding (a test module left empty requires them); `covered`, id(reference node) -> the finding whose
    fix deletes that reference (no other fix rewrites it)."""

    facts: TestFacts
    deleted: list[tuple[cst.CSTNode, Planned]] = field(default_factory=list)
    covered: dict[int, Planned] = field(default_factory=dict)


@dataclass(frozen=True)
class Strings:
    """A file's string literals may name what the run removes: `removed`, each removed name -> what
    replaces it (in words); `skipped`, the places of code another fix deletes whole (a function or class with
    its decorators, an `__all__` entry), whose strings are not read."""

    removed: Mapping[str, str]
    skipped: Sequence[Place]


@dataclass(frozen=True)
class PlannedFile:
    """A file once the run has planned every finding (the engine's results, `run/noqa_findings.py`): `found`,
    line -> the codes planned on it (before suppression); `comments()`, the codes its `# noqa` comments name,
    read when first asked (a large file is tokenized through its excerpt); `selected(code)`, whether the run
    reports that code for this file; `later`, the codes whose findings the run makes after this check. Its
    checks yield findings (`model.Finding`) at `display`."""

    display: str
    found: Mapping[int, AbstractSet[str]]
    comments: Callable[[], Sequence[NoqaCode]]
    selected: Callable[[str], bool]
    # Codes whose findings are made after this check (the `imports` kind: FSU306): `found` cannot hold them.
    later: AbstractSet[str] = frozenset()
