"""The run's memo of node facts (`fixes/node_facts.py`) answers as the walks it spares, and never from an
entry left by another node that had the same id."""

from __future__ import annotations

import libcst as cst

from fsdp_unpatch.analysis.collect import count_names
from fsdp_unpatch.analysis.patterns import descendants
from fsdp_unpatch.fixes.node_facts import NodeFacts

SOURCE = "def f(group):\n    return group.finish(total, keyword=value)\n\n\nx = f(y)\n"


def test_the_memo_answers_as_the_walks() -> None:
    module = cst.parse_module(SOURCE)
    facts = NodeFacts()
    for nodes in ([module.body[0]], [module.body[1]], list(module.body)):
        assert facts.uses(nodes) == count_names(nodes)
        assert facts.uses(nodes) is facts.uses(nodes)  # asked again: from the memo
    function = module.body[0]
    assert facts.below(function) == {id(n) for n in descendants(function)} - {id(function)}


def test_an_entry_of_another_node_with_the_same_id_is_not_used() -> None:
    module = cst.parse_module(SOURCE)
    function, assignment = module.body
    facts = NodeFacts()
    facts.below(function)
    facts.uses([function])
    # as if `function` had been freed and `assignment` had been given its id
    facts._below[id(assignment)] = facts._below[id(function)]
    facts._uses[(id(assignment),)] = facts._uses[(id(function),)]
    assert facts.below(assignment) == {id(n) for n in descendants(assignment)} - {id(assignment)}
    assert facts.uses([assignment]) == count_names([assignment])


def test_the_field_walk_finds_the_nodes_children_finds() -> None:
    """`child_nodes` reads a node's fields instead of `CSTNode.children` (which copies the node): the same
    nodes, on the example's patch module and on this package's engine (every kind of statement)."""
    from pathlib import Path

    from fsdp_unpatch.analysis.patterns import child_nodes, nodes_in

    root = Path(__file__).resolve().parent.parent
    for path in (
        root / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py",
        root / "fsdp_unpatch" / "run" / "engine.py",
        root / "fsdp_unpatch" / "fixes" / "edits.py",
    ):
        module = cst.parse_module(path.read_text())
        walked = list(nodes_in(module))
        assert len(walked) == len({id(n) for n in walked}) == len(list(descendants(module)))
        assert {id(n) for n in walked} == {id(n) for n in descendants(module)}
        for node in walked:
            assert [id(c) for c in sorted(child_nodes(node), key=id)] == [id(c) for c in sorted(node.children, key=id)]
