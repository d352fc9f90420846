"""What a rule's check is handed, as small protocols below the rules and the planner alike.

The registry dispatches by subject kind (`rules/registry.py`, `SubjectKind`); a rule types its check with
the protocol of its kind, so that no rule (and not the registry) imports the planner that calls it.
`analysis/plan.py`'s `FileAnalysis` is a `ModuleSubject`; a run check is handed the run's `FileAnalysis`
objects and yields decisions (`analysis/decisions.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange

    from fsdp_unpatch.analysis.collect import Facts
    from fsdp_unpatch.analysis.names import ImportTable


class ModuleSubject(Protocol):
    """One analysed file: its tree, its module name and the facts collected from it."""

    module: cst.Module
    module_name: str
    facts: Facts

    @property
    def table(self) -> ImportTable: ...

    def code(self, node: cst.CSTNode) -> str: ...

    def position(self, node: cst.CSTNode) -> CodeRange: ...

    def place(self, node: cst.CSTNode, where: CodeRange) -> None:
        """Report `node`, a stand-in not in the tree (a name inside a string literal), at `where`."""
