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
