"""A finding before it has a position, and the edits of its fix: what every rule's planning produces.

Apart from `plan.py` (which plans a module's findings) so that a rule that plans its own findings
(`rules/registry.py`, `check`) can make them without importing the planner that calls it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Union

if TYPE_CHECKING:  # annotations only: a finding the `ast` model builds loads no libcst (`analysis/ast_findings.py`)
    import libcst as cst


@dataclass(frozen=True)
class Located:
    """Where a finding stands in the parsed text when no libcst node stands for what it is about (a comment,
    found by tokenize): 1-based lines, 0-based columns, as libcst's positions count them."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class Edit:
    """Delete `node`, or put `replacement` in its place."""

    node: cst.CSTNode
    replacement: Optional[cst.CSTNode] = None


@dataclass(eq=False)
class Planned:
    """A finding before it has a position: the node to report (or where it stands) and the edits its fix makes."""

    code: str
    node: Union[cst.CSTNode, Located]
    message: str
    target: Optional[str] = None
    edits: list[Edit] = field(default_factory=list)
    # The fix is only right together with these (a replacement goes only with all its install sites).
    requires: list[Planned] = field(default_factory=list)
    # More than a message can say (a diff against upstream), shown with the finding's source.
    detail: Optional[str] = None
    # Not reported when this fix can be made: it deletes what the finding is about (a site's `.default` order).
    moot_with: Optional[Planned] = None
    # The name of the function the fix deletes, for the steps that look for it in other files (a replacement's,
    # an installer's).
    deletes: Optional[str] = None
