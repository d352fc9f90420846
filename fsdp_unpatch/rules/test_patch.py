"""FSU202 (test-patch): a test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`)."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

TEST_PATCH = declare(
    "FSU202",
    "test-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="A test patches an FSDP2 internal (`mock.patch`, `patch.object`, `monkeypatch.setattr`)",
    messages="`{call}` patches FSDP2 internal `{target}` for the span of a test; reported for information, "
    "never changed",
    planned_in="fsdp_unpatch.rules.overrides (patches_in_tests)",
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
