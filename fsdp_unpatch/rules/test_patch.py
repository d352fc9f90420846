"""FSU202 (test-patch): a test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`).

Read from the `ast` model of the file (`semantic/model.py`), no libcst: the patching calls come from its tree
(`registrations.calls_named`), their callees and owners are qualified through the file's import table, and each
finding stands where libcst places the call (`planned.Located`), quoting it as libcst's `code_for_node` writes it
(`semantic/text.NodeText`). A file the model cannot be built for (syntax newer than the running Python's) has
none: a finding for information only, as FSU103's and FSU105's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import ast

    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.names import ImportTable

# Callees (qualified, or as spelled for pytest fixtures) that patch an attribute for the span of a test, each with
# the names of its parameters for the target and the attribute (`patch(target, new)`: a second positional argument
# is read as the attribute, as ever; a keyword names only the attribute parameter it has).
TEST_PATCHERS: dict[str, tuple[str, Optional[str]]] = {
    "mock.patch": ("target", None),
    "mock.patch.object": ("target", "attribute"),
    "monkeypatch.setattr": ("target", "name"),
    "mocker.patch": ("target", None),
    "mocker.patch.object": ("target", "attribute"),
}
# Callees that replace `sys.modules` entries for the span of a test, with the names of their parameters for the
# dict, and for the key or the new items.
MODULE_PATCHERS: dict[str, tuple[str, Optional[str]]] = {
    "monkeypatch.setitem": ("dic", "name"),
    "mock.patch.dict": ("in_dict", "values"),
    "mocker.patch.dict": ("in_dict", "values"),
}
# The last names of those callees: the calls read.
PATCHER_NAMES = frozenset(p.rsplit(".", 1)[-1] for p in (*TEST_PATCHERS, *MODULE_PATCHERS))


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Patches of FSDP2 internals and modules for the span of a test."""
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.semantic.text import short

    for at, code, target in _patches(analysis, catalog):
        yield Planned(TEST_PATCH.code, at, TEST_PATCH.message(call=short(code), target=target), target)
    yield from _module_entries(analysis, catalog)


def _patches(analysis: ModuleSubject, catalog: Catalog) -> Iterator[tuple[Located, str, str]]:
    """`monkeypatch.setitem(sys.modules, ...)` / `patch.dict(sys.modules, ...)` of an FSDP2 module, then
    `mock.patch(...)`, `patch.object(...)`, `monkeypatch.setattr(...)` of an FSDP2 internal: (where libcst places
    the call, its code as libcst writes it, the target)."""
    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module
    from fsdp_unpatch.analysis.planned import Located
    from fsdp_unpatch.analysis.registrations import calls_named, literal
    from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

    tree = analysis.model.tree if analysis.model is not None else None
    if tree is None:
        return  # syntax newer than the running Python parses: no patch known (a finding for information only)
    text, table = analysis.node_text, analysis.table
    calls = calls_named(tree, PATCHER_NAMES)

    def place(call: ast.Call, statement: ast.stmt) -> tuple[Located, str]:
        line, column = text.start(call)
        end = text.column(call.end_lineno, call.end_col_offset)  # type: ignore[arg-type]
        at = Located(line, column, call.end_lineno, end)  # type: ignore[arg-type]
        return at, text.code(call, text.indentation(statement.lineno))

    for call, statement in calls:
        parameters = _matching(_qualify(call.func, table), MODULE_PATCHERS)
        if parameters is None:
            continue
        for key in _module_keys(call, parameters, table):
            module = fsdp2_module(key, catalog)
            if module is not None:
                yield (*place(call, statement), module)
    for call, statement in calls:
        parameters = _matching(_qualify(call.func, table), TEST_PATCHERS)
        if parameters is None:
            continue
        first = _argument(call, 0, parameters[0])
        if first is None:
            continue
        second = _argument(call, 1, parameters[1])
        dotted = literal(first)
        if dotted is not None:  # patch("pkg.mod.attr", ...) / monkeypatch.setattr("pkg.mod.attr", value)
            qualified: Optional[str] = dotted
        elif literal(second) is not None:  # patch.object(obj, "attr") / setattr(obj, "attr", v)
            owner = _qualify(first, table)
            qualified = f"{owner}.{literal(second)}" if owner else None
        else:
            continue
        target = target_id(qualified, catalog) if qualified else None
        if target is not None and is_fsdp2_private(target, catalog):
            yield (*place(call, statement), target)


def _module_entries(analysis: ModuleSubject, catalog: Catalog) -> Iterator[Planned]:
    """`sys.modules["<FSDP2 module>"] = m` in a test module: for a test, as FSU107 says outside tests."""
    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module_entries, in_test_module
    from fsdp_unpatch.analysis.planned import Planned

    if not in_test_module(analysis.module_name):
        return
    for entry, module in fsdp2_module_entries(analysis, catalog):  # each where libcst places its subscript
        yield Planned(TEST_PATCH.code, entry.at, TEST_PATCH.message(call=entry.spelled, target=module), module)


def _qualify(node: Optional[ast.expr], table: ImportTable) -> Optional[str]:
    from fsdp_unpatch.semantic.imports import dotted

    name = dotted(node) if node is not None else None
    return None if name is None else table.qualify_dotted(name)


def _matching(
    callee: Optional[str], patchers: dict[str, tuple[str, Optional[str]]]
) -> Optional[tuple[str, Optional[str]]]:
    """The parameters of the patcher `callee` stands for (by its qualified name, or its ending for a fixture's)."""
    if callee is None:
        return None
    return next((names for p, names in patchers.items() if callee == p or callee.endswith("." + p)), None)


def _argument(call: ast.Call, index: int, name: Optional[str]) -> Optional[ast.expr]:
    """The argument a call passes a parameter: the `index`-th positional one (`*args` left out), else by keyword."""
    from fsdp_unpatch.analysis.registrations import keyword, positional

    args = positional(call)
    if index < len(args):
        return args[index]
    return keyword(call, name) if name is not None else None


def _module_keys(call: ast.Call, parameters: tuple[str, Optional[str]], table: ImportTable) -> list[str]:
    """The `sys.modules` keys `monkeypatch.setitem(sys.modules, "k", v)` or `patch.dict(sys.modules, {"k": v})` sets."""
    import ast

    from fsdp_unpatch.analysis.registrations import literal

    modules, keys = _argument(call, 0, parameters[0]), _argument(call, 1, parameters[1])
    if modules is None or keys is None:
        return []
    if not (_qualify(modules, table) == "sys.modules" or literal(modules) == "sys.modules"):
        return []
    if isinstance(keys, ast.Dict):
        found = [literal(k) for k in keys.keys if k is not None]  # `**other`: no key
        return [k for k in found if k is not None]
    key = literal(keys)
    return [key] if key is not None else []


TEST_PATCH = declare(
    "FSU202",
    "test-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="A test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`)",
    check=check,
    subject="module",
    candidates=(shape("fsdp2-patch"), shape("module-entry")),
    messages="`{call}` patches FSDP2 internal `{target}` for the span of a test; reported for information, "
    "never changed",
    doc="""
    ## What it does
    Reports `mock.patch("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce", ...)`,
    `mock.patch.object(FSDPParamGroup, "post_backward", ...)`, `monkeypatch.setattr(...)` and
    `mocker.patch(...)` on an FSDP2 internal, on either package path (`torch.distributed._composable.fsdp`
    of torch 2.4-2.5 too, and the classes its root re-exports: `...fsdp.FSDPModule`), and an FSDP2
    module replaced in `sys.modules` by a test (`monkeypatch.setitem(sys.modules, ...)`,
    `mock.patch.dict(sys.modules, {...})`, or `sys.modules[...] = m` in a test module).

    ## Why
    They replace the internal only for the span of one test and restore it afterwards, but they depend
    on the internal's name, which a torch upgrade may move. Reported for information (category keep: it
    never fails a run); never changed.

    ## Example
    ```python
    with mock.patch.object(FSDPParamGroup, "post_backward"):  # FSU202
        ...
    ```
    """,
)

VALID = [
    Valid(
        """from unittest import mock


def test_step_logs():
    with mock.patch("trainer.steps.backward"):
        pass
""",
        path="tests/test_steps.py",
    )
]
INVALID = [
    Invalid(
        """from unittest import mock

from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def test_post_backward_runs():
    with mock.patch.object(FSDPParamGroup, "post_backward") as hook:
        hook.assert_not_called()
""",
        path="tests/test_hooks.py",
    )
]
