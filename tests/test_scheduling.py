"""The spread of the suite over two pytest-xdist workers (tests/scheduling.py): groups stay whole, and the
units expected to take longest start first."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import scheduling

ROOT = Path(__file__).resolve().parents[1]

# A collection as a worker reports it: two tests of a group, a costly file, a costly test function with two
# parameters, tests no figure covers.
COLLECTION = [
    "tests/test_fixed_point.py::test_a[one]",
    "tests/test_fixed_point.py::test_a[two]",
    "tests/test_cheap.py::test_x",
    "tests/test_costly.py::test_p",
    "tests/test_costly.py::test_q",
    "tests/test_mixed.py::test_heavy[1]",
    "tests/test_mixed.py::test_heavy[2]",
    "tests/test_mixed.py::test_light",
]
FIGURES = {"fixed-point": 10.0, "tests/test_costly.py": 30.0, "tests/test_mixed.py::test_heavy": 40.0}


class _Node:
    """What the scheduler needs of a worker: an id and a way to be sent tests (indices into the collection)."""

    def __init__(self, name: str, sent: list[list[int]]) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent = sent

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduled(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The tests of each unit, in the order the scheduler hands the units to two workers."""
    monkeypatch.setattr(scheduling, "COSTS", FIGURES)
    config = SimpleNamespace(
        getvalue=lambda name: ["2*popen"] if name == "tx" else None,
        option=SimpleNamespace(loadscopereorder=True),  # xdist's default: the units with most tests first
    )
    scheduler = scheduling.make_scheduler(config, None)
    sent: list[list[int]] = []
    nodes = [_Node("gw0", sent), _Node("gw1", sent)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, COLLECTION)
    scheduler.schedule()
    while scheduler.workqueue:  # the workers finish what they hold and ask for more, one unit at a time
        for node in nodes:
            for unit in scheduler.assigned_work[node].values():
                for nodeid in unit:
                    unit[nodeid] = True
            scheduler._reschedule(node)
    return [[COLLECTION[i] for i in unit] for unit in sent]


def test_units_start_longest_first_and_a_group_stays_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    handed = _scheduled(monkeypatch)
    assert sorted(handed) == sorted(
        [
            ["tests/test_fixed_point.py::test_a[one]", "tests/test_fixed_point.py::test_a[two]"],
            ["tests/test_cheap.py::test_x"],
            ["tests/test_costly.py::test_p"],
            ["tests/test_costly.py::test_q"],
            ["tests/test_mixed.py::test_heavy[1]"],
            ["tests/test_mixed.py::test_heavy[2]"],
            ["tests/test_mixed.py::test_light"],
        ]
    )
    # 20 and 20 (a function's 40 shared by its two tests), 15 and 15 (a file's 30 shared by its two tests),
    # 10 (the group), then the tests no figure covers
    assert [unit[0] for unit in handed[:5]] == [
        "tests/test_mixed.py::test_heavy[1]",
        "tests/test_mixed.py::test_heavy[2]",
        "tests/test_costly.py::test_p",
        "tests/test_costly.py::test_q",
        "tests/test_fixed_point.py::test_a[one]",
    ]


def test_unit_costs_follow_the_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scheduling, "COSTS", FIGURES)
    queue = {scheduling.unit_of(nodeid): {} for nodeid in COLLECTION}
    for nodeid in COLLECTION:
        queue[scheduling.unit_of(nodeid)][nodeid] = False
    per_key = {"tests/test_fixed_point.py": 2, "tests/test_cheap.py": 1, "tests/test_costly.py": 2}
    per_key.update({"tests/test_mixed.py": 3, "tests/test_mixed.py::test_heavy": 2})
    costs = {unit: scheduling.unit_cost(unit, list(tests), per_key) for unit, tests in queue.items()}
    assert costs == {
        "fixed-point": 10.0,
        "tests/test_cheap.py::test_x": scheduling.DEFAULT_COST,
        "tests/test_costly.py::test_p": 15.0,
        "tests/test_costly.py::test_q": 15.0,
        "tests/test_mixed.py::test_heavy[1]": 20.0,
        "tests/test_mixed.py::test_heavy[2]": 20.0,
        "tests/test_mixed.py::test_light": scheduling.DEFAULT_COST,
    }


def test_a_test_function_of_a_group_goes_with_it_and_the_rest_of_its_file_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduling, "WORKER_GROUPS", {"tests/a.py::test_r": "shared", "tests/b.py::test_s": "shared"})
    assert scheduling.unit_of("tests/a.py::test_r[1]") == scheduling.unit_of("tests/b.py::test_s[2]") == "shared"
    assert scheduling.unit_of("tests/a.py::test_other") == "tests/a.py::test_other"


def test_every_figure_and_group_names_what_exists() -> None:
    """A renamed or deleted test file, test or group leaves no stale entry behind."""
    for key in scheduling.WORKER_GROUPS:
        path, _, name = key.partition("::")
        assert (ROOT / path).is_file(), key
        if name:
            assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.MULTILINE), key
    groups = set(scheduling.WORKER_GROUPS.values())
    for key in scheduling.COSTS:
        if key in groups:
            continue
        path, _, name = key.partition("::")
        assert (ROOT / path).is_file(), key
        if name:
            assert "[" not in name, f"{key}: a figure covers all the parameters of a test function"
            assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.MULTILINE), key


def test_the_figures_come_from_a_runs_junit_xml(tmp_path: Path) -> None:
    """scripts/suite_costs.py: a group sums its tests, a function its parameters, small units get no figure."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("suite_costs", ROOT / "scripts" / "suite_costs.py")
    suite_costs = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(suite_costs)  # type: ignore[union-attr]
    junit = tmp_path / "run.xml"
    cases = [
        ("tests.test_fixed_point", "test_a[one]", 3.0),
        ("tests.test_fixed_point", "test_b", 4.5),
        ("tests.test_mixed", "test_heavy[1]", 6.0),
        ("tests.test_mixed", "test_heavy[2]", 7.0),
        ("tests.test_mixed", "test_light", 0.5),
    ]
    junit.write_text(
        "<testsuites><testsuite>"
        + "".join(f'<testcase classname="{c}" name="{n}" time="{t}"/>' for c, n, t in cases)
        + "</testsuite></testsuites>"
    )
    figures = suite_costs.costs(junit, floor=2.0)
    assert figures == {"tests/test_mixed.py::test_heavy": 13.0, "fixed-point": 7.5}
    assert list(figures) == ["tests/test_mixed.py::test_heavy", "fixed-point"]  # largest first
