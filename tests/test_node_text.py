"""`semantic/text.NodeText`: an expression's source and place at `ast` positions as libcst's `code_for_node`
and `PositionProvider` gave them (what `audit foreach-copy` prints; the expectations are libcst's)."""

from __future__ import annotations

import ast

from fsdp_unpatch.semantic.text import NodeText


def _calls(text: str) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)]


def test_the_parentheses_around_an_expression_are_its_own_a_calls_are_not() -> None:
    text = "z = (f((a), ((b)), g(c)))\n"
    outer, inner = _calls(text)
    source = NodeText(text)
    assert source.code(outer) == "(f((a), ((b)), g(c)))"
    assert [source.code(a) for a in outer.args] == ["(a)", "((b))", "g(c)"]
    assert source.code(inner.args[0]) == "c"
    assert source.start(outer) == (1, 5)  # libcst places a node inside its parentheses


def test_a_generator_expression_and_a_tuple_keep_only_their_own_parentheses() -> None:
    text = "f(x for x in y)\nf(((x for x in y)), (p, q), (r), s)\nif (t):\n    pass\n"
    first, second = _calls(text)
    source = NodeText(text)
    assert source.code(first.args[0]) == "x for x in y"  # the call's parentheses
    assert [source.code(a) for a in second.args] == ["((x for x in y))", "(p, q)", "(r)", "s"]


def test_columns_count_characters_and_continuation_lines_lose_the_blocks_indentation() -> None:
    text = "if x:\n\tdef g():\n\t\tключ = f(a, (\n\t\t\tz,  # é\n\t\t\t  w))\n"
    (call,) = _calls(text)
    source = NodeText(text)
    assert source.start(call) == (3, 9)
    assert source.code(call.args[1], "\t\t") == "(\n\tz,  # é\n\t  w)"


def test_the_parentheses_around_a_with_statements_items_are_the_statements() -> None:
    """`with (f(x)):` parenthesizes the statement's items, and libcst gives the parentheses to the statement;
    `with (f(x)) as y:` and `with ((f(x))):` keep (the inner) ones around the expression."""
    text = "with (f(x)):\n    pass\nwith (f(x)) as y:\n    pass\nwith ((f(x))):\n    pass\nasync def g():\n"
    text += "    async with (\n        f(x)\n    ) :  # c\n        pass\n"
    source = NodeText(text)
    assert [source.code(c) for c in _calls(text)] == ["f(x)", "(f(x))", "(f(x))", "f(x)"]
