"""The rule registry: every rule is declared once, with `declare`, in its own module
(`fsdp_unpatch/rules/<rule_name>.py`, `collective_override.py` for FSU001).

A declaration carries everything the rest of the tool reads about a rule: its code and name, category,
fix applicability, phase (decided per file, or across the files of a run), message template,
documentation (what it does / why / example, as ruff's rule docs), the cross-file keys its findings
export to the batch layer, and its `check`: the function that takes one subject of its kind (`subject=`:
an install site and its verdict, a replacement or installer the planner decided goes, an analysed module,
the analysed files of the run, ...: `SUBJECT_KINDS`) and yields the rule's own findings, or, for the run,
the decisions on them that the engine applies. One dispatcher (`analysis/dispatch.py`) calls
the checks registered for each subject kind, and skips the rules a run deselects. `fsdp-unpatch rules` /
`explain`, the README's rules table, the codemods' code lists, the flake8 plugin and the SARIF rule
metadata all read the declaration.

`all_rules()` walks the `fsdp_unpatch.rules` package (`pkgutil`) and imports each rule module (its
declaration runs at import); a new rule module needs no registration anywhere else. The package's other
modules (`SHARED_MODULES`: this one and the examples' types) declare nothing and are not imported here;
every other module declares one rule and imports no other rule module (what several rules read lies below
them, in `analysis/`). This module also makes a `SourceError` its FSU9xx rule's finding (`error_finding`).
The registry imports nothing of the layers that run the checks (analysis, catalog, engine): a check is
typed where it is written, against the protocols and records of `analysis/subjects.py`. A rule module
stays cheap to import (no libcst: a `check` imports what it needs when it runs): the configuration checks
rule codes on runs that never parse a file.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping, Optional, get_args

from fsdp_unpatch.model import Category

if TYPE_CHECKING:
    from fsdp_unpatch.files.reading import SourceError
    from fsdp_unpatch.model import Finding

Applicability = Literal["safe", "unsafe", "none"]  # a rule's: "none" has no fix (a finding's fix is never "none")
# "file": decided from one file alone; "run": may come from another file of the run (the batch layer links
# such files, and the flake8 plugin, which sees one file at a time, may miss them).
Phase = Literal["file", "run"]
# What a file's analysis exports so that the batch layer knows which other files to analyse with it
# (`run/batch.py`, `cross_file_keys`): names its fixes delete, FSDP2 targets it patches, by-name twins
# it leaves unpatched.
CrossFileKey = Literal["deleted-names", "patched-targets", "unpatched-twins"]

CATEGORIES: tuple[str, ...] = get_args(Category)
APPLICABILITIES: tuple[str, ...] = get_args(Applicability)
CROSS_FILE_KEYS: tuple[str, ...] = get_args(CrossFileKey)
# The catalog targets a rule reports on, listed by `explain`: a target category, or the FSDP ops.
TargetKind = Literal["remove", "keep", "ops"]
DOC_SECTIONS = ("## What it does", "## Why", "## Example")

# What a rule's check takes (the dispatcher calls it once per subject of that kind; the subjects and what
# comes with them are typed in `analysis/subjects.py`):
# "site": an install site and the semantic model's verdict on it (none for a `__code__` swap);
# "patches": what a file's install sites patch, together (their completeness, their order);
# "replacement": a replacement function the planner decided goes, with its install sites and proof;
# "installer": an installer the planner decided goes, with the install sites it held;
# "copy": a same-device special case the planner found outside the code that stays;
# "installer-calls": a file's calls of the installers the run removes (its own module's, then those of the
#   run's other files, `run/linking.py`);
# "module": one analysed file; "run": the analysed files of a whole run (a run check yields decisions on
# findings, `analysis/decisions.py`, which the engine applies).
# The run's linking (`run/linking.py`), once every file was analysed, hands over what names a removed patch
# part in each file that spells one:
# "reference": a reference to a removed patch function outside the tests that go (`RemovedReference`);
# "remains": a patch module the catalog knows, for what an earlier, safe-only fix left of it in a file
#   (`Remains`; a remains check yields decisions, as a run check does);
# "tests": a file's tests and identity assertions of removed patch functions (`Tests`: the checks record
#   the tests they delete and the references their fixes delete, which the linking and later checks read);
# "strings": the names the run removes, for a file's string literals (`Strings`).
# Then the engine's results, once the run has planned every finding:
# "planned": a file with the codes planned on each of its lines and its `# noqa` comments (`PlannedFile`);
#   its checks yield findings (`model.Finding`);
# "imports": the files of the run, for the imports in them (`ProjectImports`); its checks yield findings
#   with the index of their file (`FileFinding`).
SubjectKind = Literal[
    "site",
    "patches",
    "replacement",
    "installer",
    "copy",
    "installer-calls",
    "module",
    "run",
    "remains",
    "reference",
    "tests",
    "strings",
    "planned",
    "imports",
]
SUBJECT_KINDS: tuple[str, ...] = get_args(SubjectKind)
# A rule's check: `check(subject, catalog, options)`; typed in the rule module (`analysis/subjects.py`).
Check = Callable[..., Iterable[Any]]

# What a rule is to the code that runs it and reports on it (`role=`): the steps of the run and the reports
# read these rules' findings by code (an installer's deletion, a call of one), and ask the registry for the
# rule that plays the role (`with_role("installer").code`), never its module: no module outside `rules/` and
# the dispatcher imports a rule module. One rule per role:
# "proven-override": an install site of a proven copy, deleted (what a migration's description is about);
# "replacement": a replacement function deleted with its install sites;
# "installer": an installer deleted, left with nothing to do;
# "installer-call": a call (or import) of a removed installer, deleted;
# "same-device-copy": a same-device special case collapsed to the native call;
# "enhance-installer": an enhance patch's installer (the optional patches, kept);
# "reference-rewrite": a reference to a removed symbol, rewritten to the native one;
# "parse-error": a file CPython cannot parse; "fix-not-written": a fix that could not be written;
# "stale-by-name-import": a name another FSDP2 module imports by name, patched in one module only.
Role = Literal[
    "proven-override",
    "replacement",
    "installer",
    "installer-call",
    "same-device-copy",
    "enhance-installer",
    "reference-rewrite",
    "parse-error",
    "fix-not-written",
    "stale-by-name-import",
]
ROLES: tuple[str, ...] = get_args(Role)

# What makes a file a candidate for a rule: each rule declares its shapes next to its subject kind
# (`candidates=`: `shape(...)`, `word(...)`, `call(...)`), and the gates that spare files a parse are compiled
# from the union of what the registered rules declare: the prefilter (`analysis/prefilter.py`) into a byte
# search and a shape test on the bytes, the ast screen (`analysis/screen.py`) into a test on CPython's syntax
# tree; the `ast` findings (`analysis/ast_findings.py`, `run/on_ast.py`) stand in for libcst only on a file
# whose one declared shape is plain stores, and not at all when a rule that declares those checks only
# modules or runs. A file that holds no declared shape is never parsed: no check sees it. The shapes the
# catalog spells out:
# "fsdp2-store": an attribute of an FSDP2 module, class or op stored into (`X.attr = f`, X bound by any import
#   or alias, or imported relatively inside an FSDP2 or patch package): the install sites the `ast` model
#   decides on its own (`analysis/ast_findings.py`), and what the planner's subjects come from;
# "fsdp2-patch": an attribute of FSDP2 set any other way: `setattr(X, ...)`, `mock.patch("torch....")`,
#   `patch.object(X, ...)`, `monkeypatch.setattr`, `X.__dict__["attr"] = f`, `vars(X)[...] = f`, rows of
#   `(X, "attr", f)`, `@install_over(X, "attr")`, a registration handed an op's packet;
# "kernel-registration": a kernel registered for an FSDP op (`impl`, `register_kernel`, `Library("fsdp", ...)`);
# "op-definition": an op of an FSDP op namespace defined (`define("fsdp::...")`, `custom_op`), outside torch;
# "fsdp2-class": a class named like an FSDP2 class, outside torch;
# "fsdp2-subclass": a class deriving from an FSDP2 class, outside torch;
# "module-entry": a `sys.modules` entry under torch.distributed stored or patched;
# "same-device-copy": a same-device special case around `torch._foreach_copy_`;
# "patch-part": a name of a patch part the catalog knows (a patch module, an installer, a replacement);
# "suppression": a noqa or `fsdp-unpatch:` comment naming this tool's codes;
# "unparsable": a file that names FSDP2 and that CPython cannot parse or decode.
# The shapes a rule spells itself: "word" (`word("fully_shard")`: the word anywhere in the file's bytes) and
# "call" (`call("fully_shard")`: a call whose callee is spelled with that last name, `fully_shard(m)`,
# `fsdp.fully_shard(m)`; an alias the file binds for it is not followed, declare the word for those).
Shape = Literal[
    "fsdp2-store",
    "fsdp2-patch",
    "kernel-registration",
    "op-definition",
    "fsdp2-class",
    "fsdp2-subclass",
    "module-entry",
    "same-device-copy",
    "patch-part",
    "suppression",
    "unparsable",
    "word",
    "call",
]
SHAPES: tuple[str, ...] = get_args(Shape)
NAMED_SHAPES = frozenset({"word", "call"})  # the shapes a rule spells itself, with a name


@dataclass(frozen=True)
class Candidate:
    """One shape that makes a file a candidate for a rule (see `Shape`): `shape("fsdp2-store")`, `call("fully_shard")`."""

    shape: Shape
    name: str = ""  # the word, or the callee's last name, of a "word" or "call"

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"{self.shape!r} is no candidate shape (registry.SHAPES)")
        if (self.shape in NAMED_SHAPES) != bool(self.name):
            raise ValueError(f"a {self.shape!r} candidate {'needs' if self.name == '' else 'takes no'} name")
        if self.shape == "call" and not self.name.isidentifier():
            raise ValueError(f"call({self.name!r}): a callee's last name is an identifier")


def shape(name: Shape) -> Candidate:
    """A shape the catalog spells out (`shape("fsdp2-store")`): a file that holds one is a candidate."""
    if name in NAMED_SHAPES:
        raise ValueError(f"a {name!r} candidate has a name: `{name}(...)`")
    return Candidate(name)


def word(text: str) -> Candidate:
    """A file whose bytes spell `text` anywhere is a candidate."""
    return Candidate("word", text)


def call(name: str) -> Candidate:
    """A file that calls a callee spelled with the last name `name` (`name(...)`, `x.name(...)`) is a candidate."""
    return Candidate("call", name)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    category: Category
    fix: Applicability
    phase: Phase
    summary: str
    # The finding's messages, by form ("default" for a rule with one), with `{field}` placeholders.
    messages: Mapping[str, str] = field(hash=False)
    # Markdown in three sections (DOC_SECTIONS), as ruff documents a rule.
    doc: str
    exports: tuple[CrossFileKey, ...] = ()
    targets: Optional[TargetKind] = None
    check: Optional[Check] = field(default=None, compare=False)
    subject: Optional[SubjectKind] = None  # the kind of subject `check` takes
    module: str = ""  # the rule's own module (`collective_override` for FSU001)
    # More checks of other subject kinds (FSU401: its file's sites, then the run), as (kind, check) pairs.
    also: tuple[tuple[SubjectKind, Check], ...] = field(default=(), compare=False)
    # Other rules read what this one plans (their fixes require its fixes, or a later step reads its
    # findings): its checks run even when the run deselects it, so that deselecting it changes no other
    # rule's findings; only its own are left out of the output, as for any deselected rule.
    feeds_others: bool = False
    # The shapes that make a file a candidate for this rule (`Candidate`): the gates that spare files a parse
    # keep every file that holds a shape some registered rule declares (the union over `all_rules()`).
    candidates: tuple[Candidate, ...] = ()
    role: Optional[Role] = None  # what the run and the reports read it as (`Role`, `with_role`)

    def checks(self) -> tuple[tuple[SubjectKind, Check], ...]:
        """Every (kind of subject, check) of the rule."""
        own = ((self.subject, self.check),) if self.subject is not None and self.check is not None else ()
        return own + self.also

    def check_of(self, kind: SubjectKind) -> Optional[Check]:
        """The rule's check of subjects of `kind`, if it has one."""
        return next((check for subject, check in self.checks() if subject == kind), None)

    def message(self, form: str = "default", /, **fields: object) -> str:
        """The message of one form, its placeholders filled: `RULE.message("wrapper", name=...)`."""
        return self.messages[form].format(**fields)


_DECLARED: dict[str, Rule] = {}


def declare(
    code: str,
    name: str,
    *,
    category: Category,
    fix: Applicability,
    phase: Phase,
    summary: str,
    messages: Mapping[str, str] | str,
    doc: str,
    exports: tuple[CrossFileKey, ...] = (),
    targets: Optional[TargetKind] = None,
    check: Optional[Check] = None,
    subject: Optional[SubjectKind] = None,
    also: Mapping[SubjectKind, Check] | None = None,
    feeds_others: bool = False,
    candidates: tuple[Candidate, ...] = (),
    role: Optional[Role] = None,
) -> Rule:
    """Record a rule; called once per rule, at the import of its module. A `check` needs its `subject`;
    `also`: checks of other kinds of subject; `candidates`: the shapes that make a file a candidate for it."""
    if (check is None) != (subject is None):
        raise ValueError(f"rule {code}: a check and its subject kind go together")
    if not all(isinstance(c, Candidate) for c in candidates):
        raise ValueError(f"rule {code}: candidates are `Candidate`s (`shape(...)`, `word(...)`, `call(...)`)")
    if role is not None and role not in ROLES:
        raise ValueError(f"rule {code}: {role!r} is no role (registry.ROLES)")
    extra = tuple((also or {}).items())
    if subject in dict(extra) or not set(dict(extra)) <= set(SUBJECT_KINDS):
        raise ValueError(f"rule {code}: one check per kind of subject, of a known kind")
    forms = {"default": messages} if isinstance(messages, str) else dict(messages)
    module = sys._getframe(1).f_globals["__name__"].rsplit(".", 1)[-1]
    rule = Rule(
        code,
        name,
        category,
        fix,
        phase,
        summary,
        forms,
        _dedent(doc),
        exports,
        targets,
        check,
        subject,
        module,
        extra,
        feeds_others,
        tuple(candidates),
        role,
    )
    if code in _DECLARED and _DECLARED[code] != rule:
        raise ValueError(f"rule {code} is declared twice")
    _DECLARED[code] = rule
    return rule


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()


RULES_PACKAGE = "fsdp_unpatch.rules"
# The modules of the package that are not rules: the registry and the examples' types. Every other module
# declares one rule, and no rule module imports another (the facts several rules read lie below them).
SHARED_MODULES = frozenset({"registry", "examples"})


def rule_modules() -> list[str]:
    """The rule modules: every module of `fsdp_unpatch.rules` but the shared ones, found by walking it."""
    package = importlib.import_module(RULES_PACKAGE)
    return sorted(
        f"{RULES_PACKAGE}.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.ispkg and info.name not in SHARED_MODULES
    )


@functools.cache
def all_rules() -> Mapping[str, Rule]:
    """Every declared rule, by code, in code order."""
    for module in rule_modules():
        importlib.import_module(module)
    return {code: _DECLARED[code] for code in sorted(_DECLARED)}


def rule(code: str) -> Rule:
    return all_rules()[code]


def codes(
    *,
    fix: Optional[Applicability] = None,
    category: Optional[Category] = None,
    phase: Optional[Phase] = None,
) -> frozenset[str]:
    """The codes of the rules that match every criterion given (`codes(fix="safe")`)."""
    return frozenset(
        r.code
        for r in all_rules().values()
        if (fix is None or r.fix == fix)
        and (category is None or r.category == category)
        and (phase is None or r.phase == phase)
    )


def with_role(role: Role) -> Rule:
    """The one rule that declares `role` (`with_role("installer").code`)."""
    found = [r for r in all_rules().values() if r.role == role]
    if len(found) != 1:
        raise LookupError(f"{len(found)} rules declare the role {role!r}: one does")
    return found[0]


def role_of(code: str) -> Optional[Role]:
    """The role the rule of `code` declares, if any."""
    found = all_rules().get(code)
    return found.role if found is not None else None


def checking(kind: SubjectKind) -> list[Rule]:
    """The rules whose check takes subjects of `kind`, in code order."""
    return [r for r in all_rules().values() if r.check_of(kind) is not None]


@functools.cache
def code_of_kind() -> dict[str, str]:
    """Each source-error kind (`files/reading.py`'s `SourceError`) -> the code of the rule that reports it:
    the error rule that declares that kind (`SOURCE_ERROR` in `parse_error.py`, `read_error.py`, ...)."""
    found: dict[str, str] = {}
    for rule in all_rules().values():
        kind = getattr(importlib.import_module(f"{RULES_PACKAGE}.{rule.module}"), "SOURCE_ERROR", None)
        if kind is not None:
            found[kind] = rule.code
    return found


def error_finding(display: str, error: SourceError) -> Finding:
    """A file that could not be checked or fixed, as a finding: the `SourceError` that reading, parsing or
    writing raised carries its kind, and the error rule of that kind gives the finding its code."""
    from fsdp_unpatch.model import Finding, Span

    span = Span(error.line, error.column, error.line, error.column)
    return Finding(code=code_of_kind()[error.kind], category="error", path=display, span=span, message=str(error))
