"""The test rules of a file, in the order they depend on each other: the tests that go (FSU303), the
module they leave empty (FSU305, which requires their deletions), the identity assertions outside them
(FSU302). The facts they read are `analysis/test_modules.py`'s; a step of the run's linking
(`run/linking.py`), which adds the findings to the file's plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.analysis.references import FileReferences
from fsdp_unpatch.analysis.test_modules import read_tests, subtree_ids
from fsdp_unpatch.rules import patch_identity_assertion, removed_function_test, removed_function_test_module


@dataclass
class TestPlan:
    planned: list[Planned] = field(default_factory=list)
    # id(reference node) -> the finding whose fix deletes it
    covered: dict[int, Planned] = field(default_factory=dict)
    # nodes the fix deletes whole (dedicated tests), with their finding
    deleted: list[tuple[cst.CSTNode, Planned]] = field(default_factory=list)


def plan_tests(
    analysis: FileAnalysis,
    references: FileReferences,
    *,
    test_module: bool,
    installer_calls: set[int],
    used_elsewhere: Callable[[], bool] = lambda: False,
) -> TestPlan:
    """Findings for identity assertions (any file) and dedicated tests (test modules only).

    `installer_calls`: ids of statements that call a removed installer."""
    facts = read_tests(
        analysis.module,
        references,
        test_module=test_module,
        installer_calls=installer_calls,
        used_elsewhere=used_elsewhere,
    )
    planned_tests: list[Planned] = []  # what the plan holds, made here before the plan is returned
    covered: dict[int, Planned] = {}
    deleted: list[tuple[cst.CSTNode, Planned]] = []
    for test, kind, calls in facts.going:
        planned = removed_function_test.finding(facts, test, kind, calls)
        planned_tests.append(planned)
        deleted.append((test, planned))
        for reference in facts.refs_in(test):
            covered[id(reference.node)] = planned
    if facts.module_left_empty:
        tests = [planned for _, planned in deleted]
        planned_tests.append(removed_function_test_module.finding(analysis.module, tests))
    gone: set[int] = set()
    for node, _ in deleted:
        gone |= subtree_ids(node)
    for assertion in facts.assertions:
        if id(assertion.statement) in gone:
            continue
        planned = patch_identity_assertion.finding(assertion)
        planned_tests.append(planned)
        for reference in assertion.references:
            covered[id(reference.node)] = planned
    return TestPlan(planned_tests, covered, deleted)
