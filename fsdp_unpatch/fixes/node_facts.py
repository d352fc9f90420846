"""Facts of libcst nodes that a run asks for again and again, computed once per node (or list of nodes).

Every fix's regions (`engine.Run.replacements`) walk the fixes it carries: the names their edits use and the
nodes below each edit. A replacement function is a whole upstream function, and a file with ten findings
asked for the same walks dozens of times. Entries are keyed by identity and hold their nodes, so an id is
never reused while its entry lives; one `NodeFacts` lives as long as the run that made it.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import libcst as cst

from fsdp_unpatch.analysis.collect import count_names
from fsdp_unpatch.analysis.patterns import nodes_in
from fsdp_unpatch.fixes.layout import Layout, layout_of
from fsdp_unpatch.fixes.loads import ImportLoads, import_loads
from fsdp_unpatch.semantic.names import ImportTable


class NodeFacts:
    def __init__(self) -> None:
        self._uses: dict[tuple[int, ...], tuple[tuple[cst.CSTNode, ...], Counter]] = {}
        self._below: dict[int, tuple[cst.CSTNode, frozenset[int]]] = {}
        self._layouts: dict[int, tuple[cst.Module, Layout]] = {}
        self._loads: dict[int, tuple[cst.Module, ImportLoads]] = {}

    def uses(self, nodes: Sequence[cst.CSTNode]) -> Counter:
        """`count_names(nodes)`; the caller must not change the counter it gets."""
        key = tuple(map(id, nodes))
        found = self._uses.get(key)
        if found is None or any(a is not b for a, b in zip(found[0], nodes)):
            found = (tuple(nodes), count_names(list(nodes)))
            self._uses[key] = found
        return found[1]

    def below(self, node: cst.CSTNode) -> frozenset[int]:
        """The ids of the nodes strictly below `node`."""
        found = self._below.get(id(node))
        if found is None or found[0] is not node:
            found = (node, frozenset(id(n) for n in nodes_in(node) if n is not node))
            self._below[id(node)] = found
        return found[1]

    def layout(self, module: cst.Module) -> Layout:
        """The module's code with where each top-level statement's code stands (`layout.py`)."""
        found = self._layouts.get(id(module))
        if found is None or found[0] is not module:
            found = (module, layout_of(module))
            self._layouts[id(module)] = found
        return found[1]

    def import_loads(self, module: cst.Module, table: ImportTable) -> ImportLoads:
        """What the module's imports load and the chains it spells (`loads.py`)."""
        found = self._loads.get(id(module))
        if found is None or found[0] is not module:
            found = (module, import_loads(module, table))
            self._loads[id(module)] = found
        return found[1]
