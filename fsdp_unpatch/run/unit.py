"""One file of a run as the engine holds it: the candidate, its bytes, its analysis (or why there is none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from fsdp_unpatch.analysis.ast_findings import AstFindings
from fsdp_unpatch.analysis.excerpt import Excerpt
from fsdp_unpatch.config.discovery import Candidate
from fsdp_unpatch.files.reading import SourceFile
from fsdp_unpatch.model import Finding

if TYPE_CHECKING:  # a unit decided on the `ast` model holds no libcst analysis: none is loaded for it
    import libcst as cst
    from libcst.metadata import CodeRange

    from fsdp_unpatch.analysis.plan import FileAnalysis
    from fsdp_unpatch.analysis.planned import Located


@dataclass
class Unit:
    candidate: Candidate
    source: Optional[SourceFile] = None
    analysis: Optional[FileAnalysis] = None
    error: Optional[Finding] = None
    skipped: bool = False  # `# fsdp-unpatch: skip-file`: never analysed, reported or fixed
    excerpt: Optional[Excerpt] = None  # a large file analysed through an excerpt (`analysis/excerpt.py`)
    linked: Optional[dict[str, str]] = None  # names other files bind to FSDP2 that this file imports
    on_ast: Optional[AstFindings] = None  # findings the `ast` model built, no libcst analysis (`run/on_ast.py`)

    def position(self, node: Union[cst.CSTNode, Located]) -> CodeRange:
        assert self.analysis is not None
        return self.analysis.position(node)
