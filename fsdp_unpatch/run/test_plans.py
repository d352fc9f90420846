"""The test rules of a file (`tests`: FSU302, FSU303, FSU305, through the dispatcher): the tests that go, the
module they leave empty (which requires their deletions), the identity assertions outside them. The facts
they read are `analysis/test_modules.py`'s; a step of the run's linking (`run/linking.py`), which adds the
findings to the file's plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.planned import Planned
from fsdp_unpatch.analysis.references import FileReferences
from fsdp_unpatch.analysis.subjects import Tests
from fsdp_unpatch.analysis.test_modules import read_tests
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.options import Options


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
    catalog: Catalog,
    options: Options,
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
    tests = Tests(facts)
    planned = list(dispatch("tests", tests, analysis, catalog, options=options))  # the checks record as they go
    return TestPlan(planned, tests.covered, tests.deleted)
