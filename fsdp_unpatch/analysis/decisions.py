"""What the run-phase (cross-file) steps decide, as data, and the one place that applies it.

The cross-file steps (`run/linking.py`, `run/orphans.py`, FSU401's run check) read the run's
analysed files and yield decisions instead of editing other files' plans in place: add a finding to a
file, drop one, make one fix require others, hold a fix back, keep an installer the fix would delete. The engine applies
each decision as it is yielded (`run/engine.py`, `Run.decide`, the one caller of `apply`), so a step reads
the plans as its own earlier decisions left them. Below the rules, so that a rule's step can yield them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Protocol, Sequence, Union

from fsdp_unpatch.analysis.planned import Planned


class Never(Planned):
    """A requirement never met: a fix that requires it is not applied (the finding is still reported).
    It carries the code of the finding it holds, so that it says nothing of its own (no other rule's fix
    safety, no edit)."""


def never(planned: Planned) -> Never:
    import libcst as cst  # a hold is on an analysed file's fix: a run of `ast` findings alone loads no libcst

    return Never(planned.code, cst.Pass(), "never applied")


def is_held(planned: Planned) -> bool:
    """Whether a `Hold` keeps `planned`'s fix from being made."""
    return any(isinstance(required, Never) for required in planned.requires)


class Plans(Protocol):
    """A file's plan as the decisions change it (`analysis/plan.py`'s `FileAnalysis`)."""

    planned: list[Planned]
    replacements: dict[str, Planned]
    installers: list[Any]


class Installer(Protocol):
    """An installer of the run (`analysis/plan.py`'s `Installer`)."""

    finding: Optional[Planned]
    removable: bool


@dataclass(frozen=True)
class Add:
    """Plan `planned` in the file of `analysis`; `replacement`: it deletes that replacement function;
    `installer`: it deletes that installer."""

    analysis: Plans
    planned: Planned
    replacement: Optional[str] = None
    installer: Optional[Installer] = None


@dataclass(frozen=True)
class Drop:
    """`planned` is not a finding of the file after all; `replacement`: nor is that replacement function
    deleted (whatever deletion the file planned for it)."""

    analysis: Plans
    planned: Planned
    replacement: Optional[str] = None


@dataclass(frozen=True)
class Require:
    """`planned`'s fix may be made only with each of `required` (fixes in any file of the run)."""

    planned: Planned
    required: tuple[Planned, ...]


@dataclass(frozen=True)
class Hold:
    """`planned` is still reported, but its fix is not made (it requires a `Never`); `why` ends its message."""

    planned: Planned
    why: str = ""


@dataclass(frozen=True)
class KeepInstaller:
    """The installer stays (`why`): still reported, not deleted; every planned fix of `analyses` that needs
    its deletion (its calls, a replacement named only inside it) is dropped, and so are those needing them."""

    installer: Installer
    why: str
    analyses: Sequence[Plans]


Decision = Union[Add, Drop, Require, Hold, KeepInstaller]


def apply_all(decisions: Iterable[Decision]) -> None:
    """Apply each decision as it comes (a step that yields them reads the plans its earlier ones left)."""
    for decision in decisions:
        apply(decision)


def apply(decision: Decision) -> None:
    if isinstance(decision, Add):
        _add(decision)
    elif isinstance(decision, Drop):
        _drop(decision)
    elif isinstance(decision, Require):
        decision.planned.requires.extend(decision.required)
    elif isinstance(decision, Hold):
        decision.planned.requires.append(never(decision.planned))
        decision.planned.message += decision.why
    elif isinstance(decision, KeepInstaller):
        _keep_installer(decision)
    else:  # pragma: no cover - a new kind of decision must be applied here
        raise TypeError(f"not a decision: {decision!r}")


def _add(decision: Add) -> None:
    analysis = decision.analysis
    analysis.planned.append(decision.planned)
    if decision.replacement is not None:
        analysis.replacements[decision.replacement] = decision.planned
    if decision.installer is not None:
        analysis.installers.append(decision.installer)


def _drop(decision: Drop) -> None:
    analysis = decision.analysis
    if decision.planned in analysis.planned:
        analysis.planned.remove(decision.planned)
    if decision.replacement is not None:
        analysis.replacements.pop(decision.replacement, None)


def _keep_installer(decision: KeepInstaller) -> None:
    installer = decision.installer
    finding: Any = installer.finding
    finding.edits = []
    finding.message += decision.why
    installer.removable = False
    not_made = {id(finding)}  # deletions the fix will not make
    changed = True
    while changed:  # each pass drops planned fixes, so it ends
        changed = False
        for analysis in decision.analyses:
            needing = {id(p) for p in analysis.planned if any(id(r) in not_made for r in p.requires)}
            if not needing:
                continue
            not_made |= needing
            analysis.planned = [p for p in analysis.planned if id(p) not in needing]
            for name, planned in list(analysis.replacements.items()):
                if id(planned) in needing:
                    del analysis.replacements[name]
            changed = True
