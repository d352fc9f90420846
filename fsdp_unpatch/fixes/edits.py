"""Apply planned edits to a module, with the import clean-up they call for, and nothing else.

Every byte outside the edited statements is kept: libcst round-trips source exactly, and the
transformer below only ever returns the nodes it was given, except for the ones an edit names.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Iterable, Optional, Sequence, Union

import libcst as cst

from fsdp_unpatch.analysis.plan import Edit, FileAnalysis
from fsdp_unpatch.fixes.loads import chains_in, still_needed
from fsdp_unpatch.fixes.module_edits import apply_module_edits, split
from fsdp_unpatch.fixes.node_facts import NodeFacts
from fsdp_unpatch.model import Replacement


def outermost(edits: Sequence[Edit], memo: Optional[NodeFacts] = None) -> list[Edit]:
    """Drop edits inside a node that another edit already deletes or replaces. `memo`: the run's node facts."""
    memo = memo or NodeFacts()
    inner: set[int] = set()
    for edit in edits:
        inner |= memo.below(edit.node)
    seen: set[int] = set()
    kept = []
    for edit in edits:
        if id(edit.node) in inner or id(edit.node) in seen:
            continue
        seen.add(id(edit.node))
        kept.append(edit)
    return kept


def removed_uses(edits: Iterable[Edit], memo: Optional[NodeFacts] = None) -> Counter:
    """How many uses of each name the edits (none inside another) take out of the module."""
    memo = memo or NodeFacts()
    removed: Counter = Counter()
    for edit in edits:
        removed.update(memo.uses([edit.node]))
        if edit.replacement is not None:
            removed.subtract(memo.uses([edit.replacement]))
    return removed


def unused_imports(
    analysis: FileAnalysis, edits: Iterable[Edit], memo: Optional[NodeFacts] = None
) -> tuple[set[int], dict[int, str]]:
    """Import aliases whose every use the edits delete. An import that was unused before stays, and so does
    one of a module that the code left reaches by attribute access and no kept import loads (`loads.py`).
    Also: the aliases among them whose statement becomes a plain `import M` of the module the code left
    needs (alias id -> M), when the file's own `import torch` (M's head) stays in use, so that no linter
    sees an unused name; without one, the import stays as it is."""
    memo = memo or NodeFacts()
    edits = list(edits)
    removed = removed_uses(edits, memo)
    facts = analysis.facts
    doomed: set[int] = set()
    for local, aliases in analysis.table.sources.items():
        before = facts.name_uses[local] + analysis.exports.lists(local)
        if before > 0 and before - removed[local] <= 0:
            doomed.update(id(alias) for alias in aliases)
    if not doomed:
        return doomed, {}
    gone: set[int] = set()
    added: list[str] = []
    for edit in edits:
        gone.add(id(edit.node))
        gone |= memo.below(edit.node)
        if edit.replacement is not None:
            added += chains_in(edit.replacement)
    if analysis.hidden is not None:
        added += analysis.hidden.chains
    loads = memo.import_loads(analysis.module, analysis.table)
    keep = still_needed(loads, analysis.table, doomed, gone, added)
    plain = {}
    for key, module in keep.items():
        head = module.split(".")[0]
        if analysis.table.bindings.get(head) == head and facts.name_uses[head] - removed[head] > 0:
            plain[key] = module
    return (doomed - set(keep)) | set(plain), plain


class _Applier(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit], dropped: tuple[set[int], dict[int, str]]) -> None:
        self.remove = {id(e.node) for e in edits if e.replacement is None}
        self.replace = {id(e.node): e.replacement for e in edits if e.replacement is not None}
        self.dropped_aliases, self.plain = dropped

    def on_visit(self, node: cst.CSTNode) -> bool:
        # A node an edit deletes or replaces goes whole: nothing below it is visited (no edit lies inside it,
        # `outermost`), which spared walking every replacement function once per finding's regions.
        if id(node) in self.remove or id(node) in self.replace:
            return False
        return super().on_visit(node)

    def on_leave(  # type: ignore[override]  # one hook for every node type
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> Union[cst.CSTNode, cst.RemovalSentinel]:
        key = id(original_node)
        if key in self.remove:
            return cst.RemoveFromParent()
        if key in self.replace:
            return self.replace[key]
        return super().on_leave(original_node, updated_node)  # type: ignore[return-value]

    def _import(
        self, original_node: Union[cst.Import, cst.ImportFrom], updated_node: Union[cst.Import, cst.ImportFrom]
    ) -> Union[cst.Import, cst.ImportFrom, cst.RemovalSentinel]:
        if isinstance(original_node.names, cst.ImportStar) or isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        pairs = list(zip(original_node.names, updated_node.names))
        names = [new for old, new in pairs if id(old) not in self.dropped_aliases]
        plain = list(dict.fromkeys(self.plain[id(old)] for old, _ in pairs if id(old) in self.plain))
        if plain and names:  # the statement stays: so do its aliases the code left needs, as they are
            names = [new for old, new in pairs if id(old) not in self.dropped_aliases or id(old) in self.plain]
        elif plain:  # what the code left needs of it: `import M` in its place (`unused_imports`)
            return cst.Import(names=[cst.ImportAlias(name=cst.parse_expression(m)) for m in plain])  # type: ignore[arg-type]
        if len(names) == len(updated_node.names):
            return updated_node
        if not names:
            return cst.RemoveFromParent()
        last = names[-1]
        parenthesized = isinstance(updated_node, cst.ImportFrom) and updated_node.lpar is not None
        if not isinstance(last.comma, cst.MaybeSentinel) and not parenthesized:
            # `from m import a, b` minus b: `a,` would not parse without parentheses.
            names[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=names)

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import):
        return self._import(original_node, updated_node)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom):
        return self._import(original_node, updated_node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine):
        if id(original_node) in self.remove or not updated_node.body:
            return cst.RemoveFromParent()
        if id(original_node) in self.replace:
            return self.replace[id(original_node)]
        return updated_node

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple):
        # An element deleted (`del a, f` minus f, `__all__ = ("a", "b")` minus "b") leaves a tuple still.
        if len(updated_node.elements) == len(original_node.elements):
            return updated_node
        if not updated_node.elements:
            return updated_node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if len(updated_node.elements) == 1 and isinstance(updated_node.elements[0].comma, cst.MaybeSentinel):
            return updated_node.with_changes(elements=[updated_node.elements[0].with_changes(comma=cst.Comma())])
        return updated_node

    def leave_AugAssign(self, original_node: cst.AugAssign, updated_node: cst.AugAssign):
        was, value = original_node.value, updated_node.value
        emptied = isinstance(was, (cst.List, cst.Tuple)) and was.elements
        if emptied and isinstance(value, (cst.List, cst.Tuple)) and not value.elements:
            return cst.RemoveFromParent()  # `__all__ += ["f"]` minus "f" adds nothing
        return updated_node

    def leave_Del(self, original_node: cst.Del, updated_node: cst.Del):
        target = updated_node.target
        if isinstance(target, (cst.Tuple, cst.List)) and not target.elements:
            return cst.RemoveFromParent()  # every target it deleted went
        was = original_node.target
        several = isinstance(was, cst.Tuple) and len(was.elements) > 1
        if several and isinstance(target, cst.Tuple) and len(target.elements) == 1 and not target.lpar:
            return updated_node.with_changes(target=target.elements[0].value)  # `del a, f` minus f: `del a`
        return updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        if not updated_node.body:
            # A block cannot be empty: what was deleted leaves `pass` behind.
            return updated_node.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        return updated_node


def apply_edits(analysis: FileAnalysis, edits: Sequence[Edit], memo: Optional[NodeFacts] = None) -> cst.Module:
    """The module with `edits` applied and the imports only they used removed.

    Edits of the module as a whole (an import to add, the file to delete) come after the node edits:
    see `module_edits`. `memo`: the run's memo of node facts (`node_facts.py`).
    """
    node_edits, additions, delete = split(edits)
    module = analysis.module
    changed = fixed_statements(analysis, node_edits, memo)
    if changed is None:  # an edit of the module itself: the whole module is visited
        dropped = unused_imports(analysis, outermost(node_edits, memo), memo)
        module = module.visit(_Applier(outermost(node_edits, memo), dropped))
    elif changed:
        body: list = []
        for index, statement in enumerate(module.body):
            body.extend(changed.get(index, (statement,)))
        module = module.with_changes(body=body)
    if additions or delete:
        module = apply_module_edits(module, additions, delete)
    return module


def fixed_statements(
    analysis: FileAnalysis, edits: Sequence[Edit], memo: Optional[NodeFacts] = None
) -> Optional[dict[int, list[cst.BaseStatement]]]:
    """What the node `edits` (no module edit among them) make of the top-level statements they touch, with
    the imports only they used removed: index -> the statements that take its place (none: deleted). Only
    those statements are visited (a fix's regions apply its edits to the module once per finding: visiting
    all of it each time cost half as much again as the rest of a check of a real release). None: an edit
    of the module itself, outside every statement."""
    edits = outermost(edits, memo)
    if not edits:
        return {}
    dropped = unused_imports(analysis, edits, memo)
    applier = _Applier(edits, dropped)
    top_level = analysis.top_level
    nodes = [id(e.node) for e in edits] + list(dropped[0])
    if any(node not in top_level for node in nodes):
        return None
    changed: dict[int, list[cst.BaseStatement]] = {}
    for index in sorted({top_level[node] for node in nodes}):
        visited = analysis.module.body[index].visit(applier)
        if isinstance(visited, cst.FlattenSentinel):
            changed[index] = list(visited.nodes)
        elif isinstance(visited, cst.RemovalSentinel):
            changed[index] = []
        else:
            changed[index] = [visited]
    return changed


def replacement_regions(before: str, after: str) -> list[Replacement]:
    """The line regions of `before` that an edit rewrote, each with the text that takes its place.

    Computed from the texts rather than from the nodes, so that what libcst removes around a node
    (its leading blank lines, the import clean-up) is in the regions too. Applying the regions to
    `before`, last first, gives `after`.
    """
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    regions = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            regions.append(Replacement(i1 + 1, 1, i2 + 1, 1, "".join(new[j1:j2])))
    return regions
