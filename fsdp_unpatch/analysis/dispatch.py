"""The one dispatcher: call the checks of the rules registered for a kind of subject.

A rule declares the kind of subject its check takes (`registry.declare(..., check=, subject=)`; the kinds
are `registry.SUBJECT_KINDS`, typed in `analysis/subjects.py`). The planner's steps hand over each install
site with its verdict (`"site"`), a file's patches together, each replacement and installer they decided
goes, each same-device copy, a file's installer calls and the analysed module; the engine the run's
analysed files (a run check yields decisions, `analysis/decisions.py`, which the engine applies); the run's
linking what names a removed patch part elsewhere (references, tests, strings, the remains of an earlier
fix); the engine's results each file once its findings are planned, and the run's files for their imports.
No rule is called by name. This is the only module outside `rules/` that imports the rules (through the
registry, which finds them by walking the package): as ruff dispatches by node kind and pyupgrade by
`register(ast.Call)`, nothing else lists them. The checks of one kind are called in code order.

A rule the run deselects everywhere (`--select`, `--ignore`: `Options.deselected`) is not checked at all:
its work is skipped, not only its output; unless other rules read what it plans (`feeds_others`: FSU002
requires FSU001's fix), then it runs and only its output is filtered, so that deselecting it changes no
other rule's findings. A check yields its own rule's findings (or decisions about them) only, so skipping
it changes no other rule's.
"""

from __future__ import annotations

from typing import Any, Iterator

from fsdp_unpatch.config.options import Options
from fsdp_unpatch.rules import registry


def rules_for(kind: registry.SubjectKind, options: Options) -> list[registry.Rule]:
    """The rules that check subjects of `kind` in this run: the deselected ones left out, but for those
    whose findings other rules read (`feeds_others`)."""
    return [rule for rule in registry.checking(kind) if rule.feeds_others or rule.code not in options.deselected]


def dispatch(kind: registry.SubjectKind, subject: Any, *context: Any, options: Options) -> Iterator[Any]:
    """What the checks of `kind` yield for `subject`: `check(subject, *context, options)` of each rule."""
    for rule in rules_for(kind, options):
        check = rule.check_of(kind)
        assert check is not None
        for found in check(subject, *context, options):
            code = getattr(getattr(found, "planned", found), "code", rule.code)  # a finding, or a decision on one
            if code != rule.code:
                raise AssertionError(f"{rule.code}'s check yielded a {code} finding: each rule yields its own")
            yield found
