"""The one dispatcher: the engine calls the checks registered for each subject kind, and a rule that
`--select` / `--ignore` deselect is not checked at all (its work is skipped, not only its output)."""

from __future__ import annotations

import dataclasses

import pytest

from fsdp_unpatch import api
from fsdp_unpatch.rules import registry

# Hooks of an FSDP2 class wrapped in a loop: which ones are overridden is known only at run time (FSU105).
LOOPED_SETATTR = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def wrap_all(wrap, names=("pre_backward", "post_backward")):
    for name in names:
        setattr(FSDPParamGroup, name, wrap(getattr(FSDPParamGroup, name)))
"""


@pytest.fixture
def spied_computed_setattr(monkeypatch):
    """FSU105's check, recording each call."""
    calls: list[str] = []
    rule = registry.rule("FSU105")
    assert rule.check is not None

    def spy(*args):
        calls.append(rule.code)
        return rule.check(*args)

    rules = {**registry.all_rules(), rule.code: dataclasses.replace(rule, check=spy)}
    monkeypatch.setattr(registry, "all_rules", lambda: rules)
    return calls


def test_a_selected_rules_check_is_called(spied_computed_setattr) -> None:
    findings = api.check_source(LOOPED_SETATTR, "adapter/tracing.py", isolated=True)
    assert [f.code for f in findings] == ["FSU105"]
    assert spied_computed_setattr == ["FSU105"]


@pytest.mark.parametrize("deselect", [{"ignore": "FSU105"}, {"ignore": "FSU1"}, {"select": "FSU0"}])
def test_a_deselected_rules_check_is_not_called(spied_computed_setattr, deselect) -> None:
    findings = api.check_source(LOOPED_SETATTR, "adapter/tracing.py", isolated=True, **deselect)
    assert findings == []
    assert spied_computed_setattr == []


def test_each_kind_has_its_rules_and_a_deselected_one_is_left_out() -> None:
    from fsdp_unpatch.analysis.dispatch import rules_for
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options

    everything = Options(target_torch=Version.parse("2.13"))
    assert {r.code for r in rules_for("module", everything)} >= {"FSU103", "FSU105", "FSU106", "FSU107", "FSU202"}
    assert [r.code for r in rules_for("run", everything)] == ["FSU401"]
    without = Options(target_torch=Version.parse("2.13"), deselected=frozenset({"FSU401", "FSU105"}))
    assert rules_for("run", without) == []
    assert "FSU105" not in {r.code for r in rules_for("module", without)}


def test_a_check_that_yields_another_rules_finding_is_refused(monkeypatch) -> None:
    """Skipping a deselected rule's check must not hide another rule's findings: each yields its own."""
    from fsdp_unpatch.analysis.dispatch import dispatch
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options

    rule = registry.rule("FSU105")

    def borrows(*args):
        yield Planned("FSU202", None, "a test patch", None)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "all_rules", lambda: {rule.code: dataclasses.replace(rule, check=borrows)})
    with pytest.raises(AssertionError, match="FSU105's check yielded a FSU202 finding"):
        list(dispatch("module", object(), None, options=Options(target_torch=Version.parse("2.13"))))
