"""What a module binds at top level, from the one walk (`project/bindings.py`): its views agree."""

from __future__ import annotations

import ast

from fsdp_unpatch.project.bindings import assigned, bindings, census_of, counts

SOURCE = (
    "import a.b\nfrom m import *\nif x: y = 1\nif p:\n    pass\nelif q:\n    pass\nelse:\n    z = 1\n"
    "match v:\n    case [w]:\n        w2 = 2\n"
    "def f():\n    global g\n    h = lambda: 1\nfor i in range(2):\n    pass\nf = 3\nbuiltins.k = 4\n"
)


def test_every_block_counts_and_each_view_reads_the_same_walk() -> None:
    body = ast.parse(SOURCE).body
    assert counts(body) == {"y": 1, "z": 1, "w2": 1, "f": 2}
    assert counts(body, imports=True) == {"a": 1, "y": 1, "z": 1, "w2": 1, "f": 2}
    found = bindings(body)
    assert found.names == {"a", "y", "z", "w", "w2", "f", "g", "i"} and found.open and found.star
    assert assigned(body) == found.names - {"a"}


def test_a_module_without_dynamic_bindings_is_closed_and_a_lambda_in_a_function_is_read() -> None:
    body = ast.parse("def f():\n    return lambda: 1\nx: int\n").body
    assert bindings(body).names == {"f"} and not bindings(body).open  # `x: int` binds nothing
    assert not bindings(ast.parse("import sys\nsys.modules['m'] = 1\n").body).star
    assert bindings(ast.parse("import sys\nsys.modules['m'] = 1\n").body).open
    census = census_of("def f():\n    g = lambda: exec('x = 1')\n", "m")
    assert census is not None and census.dynamic


def test_a_literal_globals_key_binds_its_name_and_a_computed_one_opens_the_module() -> None:
    literal = bindings(ast.parse("globals()['patched'] = 1\n").body)
    assert literal.names == {"patched"} and not literal.open
    assert bindings(ast.parse("globals()[name] = 1\n").body).open


def test_a_comprehension_variable_is_not_a_module_binding_but_a_walrus_in_it_is() -> None:
    found = bindings(ast.parse("xs = [i for i in range(3)]\nys = [(j := i) for i in xs]\n").body)
    assert found.names == {"xs", "ys", "j"}


def test_exec_or_globals_in_a_function_may_bind_any_name() -> None:
    assert bindings(ast.parse("def f():\n    exec('x = 1')\n").body).open
    assert bindings(ast.parse("def f():\n    globals().update(x=1)\n").body).open
