"""What the analysis reports: findings, their locations and the fixes attached to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Span:
    """1-based line and column, end inclusive of the last line, end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Replacement:
    """Replace the text from (line, column) up to (end_line, end_column) by `content`.

    1-based, end exclusive; an empty region (start == end) inserts. Regions cover whole lines, so
    `end_line` may be one past the last line when the region runs to the end of the file.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: str  # "safe" or "unsafe"
    description: str
    # What applying this fix alone (with the fixes it requires) changes; filled only when a report needs it.
    replacements: tuple[Replacement, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"applicability": self.applicability, "description": self.description}


@dataclass
class Finding:
    code: str
    category: str
    path: str
    span: Span
    message: str
    target: Optional[str] = None
    fix: Optional[Fix] = None
    # More than the message can say: a diff of a replacement against upstream (`--show-source`).
    detail: Optional[str] = None
    # Filled by the runner: whether the fix was applied in this run.
    fixed: bool = field(default=False, compare=False)

    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.column, self.code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "category": self.category,
            "target": self.target,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "message": self.message,
            "fix": None if self.fix is None else self.fix.to_dict(),
            "detail": self.detail,
        }
