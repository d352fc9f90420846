"""The one dispatcher: the engine calls the checks registered for each subject kind, and a rule that
`--select` / `--ignore` deselect is not checked at all (its work is skipped, not only its output)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fsdp_unpatch import api
from fsdp_unpatch.rules import registry

REPO = Path(__file__).resolve().parent.parent

# Hooks of an FSDP2 class wrapped in a loop: which ones are overridden is known only at run time (FSU105).
LOOPED_SETATTR = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def wrap_all(wrap, names=("pre_backward", "post_backward")):
    for name in names:
        setattr(FSDPParamGroup, name, wrap(getattr(FSDPParamGroup, name)))
"""


def _spy(monkeypatch, code: str) -> list[str]:
    """The rule's check, recording each call."""
    calls: list[str] = []
    rule = registry.rule(code)
    assert rule.check is not None, f"{code} has a check"
    check = rule.check

    def spy(*args):
        calls.append(rule.code)
        return check(*args)

    rules = {**registry.all_rules(), rule.code: dataclasses.replace(rule, check=spy)}
    monkeypatch.setattr(registry, "all_rules", lambda: rules)
    return calls


@pytest.fixture
def spied_computed_setattr(monkeypatch):
    return _spy(monkeypatch, "FSU105")


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
    # FSU401's records link the files of a batch: it runs deselected (its output is filtered)
    assert [r.code for r in rules_for("run", without)] == ["FSU401"]
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


# A wrapper over an FSDP2 method: the verdict on its site is `unproven` (wraps the original), FSU101's.
WRAPPED_HOOK = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

_original_post_backward = FSDPParamGroup.post_backward


def _post_backward_and_log(self, *args, **kwargs):
    print("post-backward")
    return _original_post_backward(self, *args, **kwargs)


FSDPParamGroup.post_backward = _post_backward_and_log
"""


def test_a_site_rule_is_dispatched_and_skipped_when_deselected(monkeypatch) -> None:
    """The verdict on the site is the planner's; saying it is FSU101's check, which a run without FSU101
    does not call."""
    calls = _spy(monkeypatch, "FSU101")
    assert [f.code for f in api.check_source(WRAPPED_HOOK, "adapter/hooks.py", isolated=True)] == ["FSU101"]
    assert calls == ["FSU101"]
    calls.clear()
    assert api.check_source(WRAPPED_HOOK, "adapter/hooks.py", isolated=True, ignore="FSU101") == []
    assert calls == []


def _spy_every_check(monkeypatch) -> list[tuple[str, str]]:
    """Every check of every registered rule, recording (its kind of subject, the rule's code) at each call."""
    calls: list[tuple[str, str]] = []

    def spying(kind: str, code: str, check):
        def spy(*args):
            calls.append((kind, code))
            return check(*args)

        return spy

    rules = {}
    for code, rule in registry.all_rules().items():
        checks = {kind: spying(kind, code, check) for kind, check in rule.checks()}
        own = checks.pop(rule.subject) if rule.subject is not None else None  # type: ignore[call-overload]
        rules[code] = dataclasses.replace(rule, check=own, also=tuple(checks.items()))
    monkeypatch.setattr(registry, "all_rules", lambda: rules)
    return calls


# What names the replacement of INSTALLED_COPY elsewhere in its project: a reference and a string with a
# `# noqa` (reference, strings, planned), a test module that tests it (tests).
ELSEWHERE = {
    "adapter/__init__.py": "",
    "adapter/user.py": "from adapter.patch import _adapter_finalize_backward\n\n"
    "STEP = _adapter_finalize_backward  # noqa: FSU101\n"
    'TARGET = "adapter.patch._adapter_finalize_backward"\n',
    "tests/test_patch.py": "from adapter.patch import _adapter_finalize_backward\n\n\n"
    "def test_finalize():\n    _adapter_finalize_backward(None)\n",
}


def _every_kind_of_subject(**selection) -> None:
    """Sources that give a subject of every kind: a proven copy with its installer and the installer's call
    (site, patches, replacement, installer, installer calls, the module, the run, remains, imports), a
    same-device copy, and the copy's project, where other files name it (reference, tests, strings, planned)."""
    import tempfile

    from tests.upstream import expand

    copy = (REPO / "tests/rules/FSU005/special_case_in_a_helper/buffers.py").read_text(encoding="utf-8")
    for source, path in ((expand(INSTALLED_COPY), "adapter/patch.py"), (copy, "adapter/buffers.py")):
        api.check_source(source, path, isolated=True, target_torch="2.13", **selection)
    with tempfile.TemporaryDirectory() as folder:
        for name, text in {**ELSEWHERE, "adapter/patch.py": expand(INSTALLED_COPY)}.items():
            (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / name).write_text(text, encoding="utf-8")
        api.check_paths([folder], isolated=True, target_torch="2.13", **selection)


def test_each_kind_of_subject_is_handed_to_every_rule_the_registry_says_checks_it(monkeypatch) -> None:
    """The rules of each kind are the registry's (`check=`/`subject=`, `also=`), not a list kept here: each
    subject is handed to every one of them, and to no other rule. Deselected, only those whose findings
    other rules read (`feeds_others`) are still called."""
    declared = {
        kind: {code for code, r in registry.all_rules().items() if r.subject == kind or kind in dict(r.also)}
        for kind in registry.SUBJECT_KINDS
    }
    assert all(declared.values()), f"every kind has a rule: {declared}"
    calls = _spy_every_check(monkeypatch)
    _every_kind_of_subject()
    called = {kind: {code for k, code in calls if k == kind} for kind in registry.SUBJECT_KINDS}
    assert called == declared
    calls.clear()
    _every_kind_of_subject(ignore=sorted(registry.all_rules()))
    feeding = {kind: {c for c in codes if registry.rule(c).feeds_others} for kind, codes in declared.items()}
    assert {kind: {code for k, code in calls if k == kind} for kind in registry.SUBJECT_KINDS} == feeding
    assert any(feeding.values()) and any(feeding[kind] != declared[kind] for kind in declared), "both are seen"


# A proven copy installed by an installer that is called: FSU001, FSU002, FSU003 and FSU004 together.
INSTALLED_COPY = """\
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _adapter_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _adapter_finalize_backward


install()
"""


def test_a_deselected_fsu001_changes_no_other_rules_findings_or_fixes() -> None:
    """FSU002, FSU003 and FSU004 require FSU001's fix: without FSU001 they are reported as before, each
    without a fix, and nothing is deleted (as before the site rules had their own checks). Its check still
    runs (`feeds_others`); only its output is filtered."""
    from tests.upstream import expand

    source = expand(INSTALLED_COPY)

    def found(**selection):
        findings = api.check_source(source, "adapter/patch.py", isolated=True, target_torch="2.13", **selection)
        return [(f.code, f.span.line, f.message, f.fix.applicability if f.fix else None) for f in findings]

    everything = found()
    assert [(code, fix) for code, _, _, fix in everything] == [
        ("FSU002", "safe"),
        ("FSU003", "safe"),
        ("FSU001", "safe"),
        ("FSU004", "safe"),
    ]
    without = found(ignore="FSU001")
    assert without == [(code, line, message, None) for code, line, message, _ in everything if code != "FSU001"]
    fixed = api.fix_source(source, "adapter/patch.py", isolated=True, target_torch="2.13", ignore="FSU001")
    assert fixed.source == source.encode()
    assert [f.code for f in fixed.remaining] == ["FSU002", "FSU003", "FSU004"]


@pytest.mark.parametrize("code", ["FSU301", "FSU302", "FSU303", "FSU304", "FSU305", "FSU306", "FSU501"])
def test_a_deselected_rule_of_the_linking_changes_no_other_rules_findings(tmp_path: Path, code: str) -> None:
    """The rules the run's linking and results hand their subjects to: deselected, their own findings go and
    every other finding stays as it was (FSU301, FSU302 and FSU303 still run: their fixes decide what else
    goes)."""
    from tests.upstream import expand

    for name, text in {**ELSEWHERE, "adapter/patch.py": expand(INSTALLED_COPY)}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")

    def found(**selection):
        findings = api.check_paths([str(tmp_path)], isolated=True, target_torch="2.13", **selection)
        return [(f.code, f.path, f.span.line, f.message) for f in findings]

    everything = found()
    assert {"FSU301", "FSU303", "FSU304", "FSU305", "FSU501"} <= {c for c, *_ in everything}, everything
    assert found(ignore=code) == [f for f in everything if f[0] != code]
