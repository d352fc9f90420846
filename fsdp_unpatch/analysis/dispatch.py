"""The one dispatcher: call the checks of the rules registered for a kind of subject.

A rule declares the kind of subject its check takes (`registry.declare(..., check=, subject=)`); the
planner hands each analysed module over, the engine the run's analysed files (a run check yields
decisions, `analysis/decisions.py`, which the engine applies).
As ruff dispatches by node kind and pyupgrade by `register(ast.Call)`, nothing else lists the rules. A
rule the run deselects everywhere (`--select`, `--ignore`: `Options.deselected`) is not checked at all:
its work is skipped, not only its output. A check yields its own rule's findings (or decisions about
them) only, so skipping it changes no other rule's.
"""

from __future__ import annotations

from typing import Any, Iterator

from fsdp_unpatch.config.options import Options
from fsdp_unpatch.rules import registry


def rules_for(kind: registry.SubjectKind, options: Options) -> list[registry.Rule]:
    """The rules that check subjects of `kind` in this run (the deselected ones left out)."""
    return [rule for rule in registry.checking(kind) if rule.code not in options.deselected]


def dispatch(kind: registry.SubjectKind, subject: Any, *context: Any, options: Options) -> Iterator[Any]:
    """What the checks of `kind` yield for `subject`: `check(subject, *context, options)` of each rule."""
    for rule in rules_for(kind, options):
        assert rule.check is not None
        for found in rule.check(subject, *context, options):
            code = getattr(getattr(found, "planned", found), "code", rule.code)  # a finding, or a decision on one
            if code != rule.code:
                raise AssertionError(f"{rule.code}'s check yielded a {code} finding: each rule yields its own")
            yield found
