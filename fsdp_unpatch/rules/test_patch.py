"""FSU202 (test-patch): a test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.collect import Facts
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options

# Callees (qualified, or as spelled for pytest fixtures) that patch an attribute for the span of a test.
TEST_PATCHERS = ("mock.patch", "mock.patch.object", "monkeypatch.setattr", "mocker.patch", "mocker.patch.object")
# Callees that replace `sys.modules` entries for the span of a test: (callee, the dict, the key or the new items).
MODULE_PATCHERS = ("monkeypatch.setitem", "mock.patch.dict", "mocker.patch.dict")


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Patches of FSDP2 internals and modules for the span of a test."""
    from fsdp_unpatch.analysis.planned import Planned

    for call, target in _patches(analysis.facts, catalog):
        yield Planned(
            TEST_PATCH.code, call, TEST_PATCH.message(call=_short(analysis.code(call)), target=target), target
        )
    yield from _module_entries(analysis, catalog)


def _patches(facts: Facts, catalog: Catalog) -> Iterator[tuple[cst.Call, str]]:
    """`monkeypatch.setitem(sys.modules, ...)` / `patch.dict(sys.modules, ...)` of an FSDP2 module, then
    `mock.patch(...)`, `patch.object(...)`, `monkeypatch.setattr(...)` of an FSDP2 internal."""
    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module
    from fsdp_unpatch.analysis.patterns import positional_args, qualify, string_literal
    from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

    for call, _ in facts.registrations:
        callee = qualify(facts.table, call.func)
        if callee is None or not any(callee == p or callee.endswith("." + p) for p in MODULE_PATCHERS):
            continue
        for key in _module_keys(call, facts):
            module = fsdp2_module(key, catalog)
            if module is not None:
                yield call, module
    for call, _ in facts.registrations:
        patcher = _patcher(qualify(facts.table, call.func))
        if patcher is None:
            continue
        args = positional_args(call)
        if not args:
            continue
        dotted = string_literal(args[0])
        if dotted is not None:  # patch("pkg.mod.attr", ...) / monkeypatch.setattr("pkg.mod.attr", value)
            qualified: Optional[str] = dotted
        elif len(args) >= 2 and string_literal(args[1]) is not None:
            # patch.object(obj, "attr") / setattr(obj, "attr", v)
            owner = qualify(facts.table, args[0])
            qualified = f"{owner}.{string_literal(args[1])}" if owner else None
        else:
            continue
        target = target_id(qualified, catalog) if qualified else None
        if target is not None and is_fsdp2_private(target, catalog):
            yield call, target


def _module_entries(analysis: ModuleSubject, catalog: Catalog) -> Iterator[Planned]:
    """`sys.modules["<FSDP2 module>"] = m` in a test module: for a test, as FSU107 says outside tests."""
    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module_entries, in_test_module
    from fsdp_unpatch.analysis.planned import Planned

    if not in_test_module(analysis.module_name):
        return
    for entry, module in fsdp2_module_entries(analysis, catalog):  # each where libcst places its subscript
        yield Planned(TEST_PATCH.code, entry.at, TEST_PATCH.message(call=entry.spelled, target=module), module)


def _patcher(callee: Optional[str]) -> Optional[str]:
    if callee is None:
        return None
    return next((p for p in TEST_PATCHERS if callee == p or callee.endswith("." + p)), None)


def _module_keys(call: cst.Call, facts: Facts) -> list[str]:
    """The `sys.modules` keys `monkeypatch.setitem(sys.modules, "k", v)` or `patch.dict(sys.modules, {"k": v})` sets."""
    import libcst as cst

    from fsdp_unpatch.analysis.patterns import positional_args, qualify, string_literal

    args = positional_args(call)
    if len(args) < 2 or not (
        qualify(facts.table, args[0]) == "sys.modules" or string_literal(args[0]) == "sys.modules"
    ):
        return []
    if isinstance(args[1], cst.Dict):
        keys = [string_literal(e.key) for e in args[1].elements if isinstance(e, cst.DictElement)]
        return [k for k in keys if k is not None]
    key = string_literal(args[1])
    return [key] if key is not None else []


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
