"""What a file's analysis is once planned: its findings, installers, replacements and what it patches.

Apart from the planner (`plan.py`) so that the rules and the fix layer can name it without importing the
planner that runs the rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional, Union

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from fsdp_unpatch.analysis.collect import Facts
from fsdp_unpatch.analysis.exports import Exports, exports
from fsdp_unpatch.analysis.patterns import nodes_in
from fsdp_unpatch.analysis.planned import Located, Planned
from fsdp_unpatch.analysis.positions import Positions
from fsdp_unpatch.analysis.registrations import LibraryFacts, library_facts
from fsdp_unpatch.analysis.screen import Detail
from fsdp_unpatch.files.reading import declared_encoding
from fsdp_unpatch.semantic.names import ImportTable
from fsdp_unpatch.semantic.text import NodeText

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.patched import Incomplete, Patched
    from fsdp_unpatch.analysis.subjects import Indirect
    from fsdp_unpatch.semantic.model import SemanticModel


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
    patched: list[Patched] = field(default_factory=list)
    # FSU401 findings and the counterpart each misses; dropped when another file patches it.
    incomplete: list[tuple[Incomplete, Planned]] = field(default_factory=list)
    # Module-level names bound to an FSDP2 module or class (`fsm = torch...._fully_shard`): other files of the
    # run that import them patch FSDP2 through them (`run/engine.py`, `link_module_aliases`).
    module_aliases: dict[str, str] = field(default_factory=dict)
    # Overrides installed in shapes no install site stands for (`indirect_installs.py`): found once, by the
    # planner; FSU101 and FSU105 report them.
    indirect_installs: Optional[list[Indirect]] = None

    # Where the top-level statements start (`SemanticModel.statement_lines`): nodes are placed one statement
    # at a time (`positions.py`); None: by a pass over the whole module.
    statement_lines: Optional[list[int]] = None
    # Why no install site was judged: the `ast` model cannot be built or does not pair with the libcst facts
    # (`site_judging.Unjudged`); each FSDP2 override of the file is then left for review.
    unjudged: Optional[str] = None
    _positions: Optional[Positions] = None
    # Positions the `ast` model gave (install sites, their values, aliases, function names), by id, in the
    # parsed text's lines (`site_judging.planner_judge`).
    _located: dict[int, CodeRange] = field(default_factory=dict)
    # For an excerpt of a large file (`excerpt.py`): the file's line for a line of the excerpt, and the names
    # the statements held aside use, spell and assign.
    file_line: Optional[Callable[[int], int]] = None
    file_column: Optional[Callable[[int, int], int]] = None  # (excerpt line, column) -> the file's column
    file_text: Optional[Callable[[str], str]] = None  # the excerpt's text -> the file's (literals put back)
    hidden: Optional[Detail] = None
    # Whether the bytes the module was parsed from spell `noqa` in any case (None: not known, its code was
    # generated): the rules that read `# noqa` comments tokenize the text only when some may be one.
    spells_noqa: Optional[bool] = None
    # The bytes the module was parsed from (an excerpt's, for an excerpt); None: its code was generated.
    data: Optional[bytes] = None
    _text: Optional[str] = None
    # The `ast` model of `text()` (`site_judging.planner_judge`); None: it could not be built.
    model: Optional[SemanticModel] = None

    @property
    def table(self) -> ImportTable:
        return self.facts.table

    def position(self, node: Union[cst.CSTNode, Located]) -> CodeRange:
        """Where a node stands in the file: as the `ast` model (or tokenize, `Located`) located it, else
        generated with the code of its top-level statement (once, on first need: `positions.py`)."""
        if isinstance(node, Located):
            where: Optional[CodeRange] = CodeRange(
                CodePosition(node.line, node.column), CodePosition(node.end_line, node.end_column)
            )
        else:
            where = self._located.get(id(node))
        if where is None:
            assert not isinstance(node, Located)
            where = self.positions[node]
        if self.file_line is None:
            return where
        column = self.file_column or (lambda _, column: column)
        start, end = where.start, where.end
        return CodeRange(
            CodePosition(self.file_line(start.line), column(start.line, start.column)),
            CodePosition(self.file_line(end.line), column(end.line, end.column)),
        )

    @property
    def positions(self) -> Positions:
        """Where libcst nodes stand in the parsed text (the excerpt's lines, for an excerpt)."""
        if self._positions is None:
            self._positions = Positions(self.module, self.statement_lines)
        return self._positions

    def locate(self, node: cst.CSTNode, where: CodeRange) -> None:
        """`node` (part of the tree) stands at `where` in the parsed text (the excerpt's lines, for an excerpt)."""
        self._located[id(node)] = where

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def text(self) -> str:
        """The text the module was parsed from, decoded as Python decodes it (its declared encoding, without a
        byte order mark), or its generated code; made once. Raises SyntaxError or ValueError for bytes that do
        not decode so (libcst decoded them its own way)."""
        if self._text is None:
            self._text = self.module.code if self.data is None else self.data.decode(declared_encoding(self.data))
        return self._text

    @functools.cached_property
    def node_text(self) -> NodeText:
        """`text()` read at the `ast` model's positions, as libcst places and quotes nodes (made once, on need)."""
        return NodeText(self.text())

    @functools.cached_property
    def library(self) -> LibraryFacts:
        """The file's `torch.library` facts, read from its `ast` model (`registrations.py`) once, on first need."""
        return library_facts(self.model, self.text() if self.model is not None else "")

    @functools.cached_property
    def exports(self) -> Exports:
        """What the file's `__all__` lists, read from its `ast` model (`exports.py`) once, on first need (after
        the planner's judge has built the model: without one, nothing is known of a file that spells `__all__`)."""
        if self.model is not None:
            return exports(self.model, self.text())
        try:
            text = self.text()
        except (SyntaxError, ValueError):
            text = self.module.code
        return exports(None, text)

    @functools.cached_property
    def dunder_all_entries(self) -> dict[str, list[cst.CSTNode]]:
        """Name -> the libcst nodes whose deletion drops it from the module's `__all__` (`exports.Entry`: each
        the node of its kind that stands at its place), found once, on first need. A name some entry of which
        no node stands for is left out: `__all__` lists it, and what it names stays (`Exports.lists`)."""
        entries = self.exports.entries
        if not entries:
            return {}
        kinds = {"element": cst.Element, "line": cst.SimpleStatementLine, "statement": cst.Expr}
        positions = self.positions
        statements: dict[int, cst.CSTNode] = {}
        for entry in entries:
            statement = positions.statement_at(entry.at.line)
            root: cst.CSTNode = self.module if statement is None else statement
            statements[id(root)] = root
        found: dict[tuple[str, Located], list[cst.CSTNode]] = {}
        for root in statements.values():
            for node in nodes_in(root):
                kind = next((k for k, t in kinds.items() if type(node) is t), None)
                if kind is not None:
                    where = positions[node]
                    at = Located(where.start.line, where.start.column, where.end.line, where.end.column)
                    found.setdefault((kind, at), []).append(node)
        nodes: dict[str, list[cst.CSTNode]] = {}
        missing: set[str] = set()
        for entry in entries:
            standing = found.get((entry.kind, entry.at), [])
            if len(standing) == 1:
                nodes.setdefault(entry.name, []).append(standing[0])
            else:
                missing.add(entry.name)
        return {name: found_nodes for name, found_nodes in nodes.items() if name not in missing}

    def registered_by_decorator(self, function: cst.FunctionDef) -> bool:
        """Whether a decorator of `function` registers it as a kernel (`@torch.library.impl(lib, "op", "Key")`):
        deleting the function would delete that registration too, which is an override of its own (FSU103).
        Without an `ast` model nothing is known of the file's registrations: any call decorator may be one."""
        if self.model is None:
            return any(isinstance(d.decorator, cst.Call) for d in function.decorators)
        for registration in self.library.kernel_registrations:
            decorated = registration.decorates
            if decorated is None or decorated.name != function.name.value:
                continue
            span = decorated.span  # from `def`, as libcst places the function
            where = Located(span.start_line, span.start_column, span.end_line, span.end_column)
            if self.position(where).start == self.position(function).start:
                return True
        return False

    @functools.cached_property
    def top_level(self) -> dict[int, int]:
        """id(node) -> the index of the top-level statement it is in, for every node (walked once, on need)."""
        return {id(node): i for i, statement in enumerate(self.module.body) for node in nodes_in(statement)}
