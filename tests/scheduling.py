"""How the suite's tests are spread over the pytest-xdist workers (`-n 2 --dist loadgroup`, pyproject.toml).

A unit of work is a group of `WORKER_GROUPS` (its tests run on one worker, one after the other) or a single
test. Units start longest first, from the CPU time each took in a measured full run (`COSTS`), so that the run
does not end with one worker busy alone on a training or a release migration that started last.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Mapping

# The tests of these files stay on one worker, each group run as one unit. Every other test goes to whichever
# worker is free. Given by file here, not with `xdist_group` marks: pytest-xdist 3.8 tags a marked test by
# renaming `item._nodeid`, which pytest 9.2 no longer reads, and the marks would be ignored.
WORKER_GROUPS = {
    # the trainings: train.py picks its gloo port with free_port() before rank 0 binds it, and a training
    # on the other worker could take it meanwhile; also the module's trainings (`train_runs`, `probe_reports`)
    # run once only when all its tests are on one worker
    "tests/test_example_runs.py": "torch-training",
    "tests/test_verify.py": "torch-training",
    "tests/test_verify_path.py": "torch-training",
    # one build of the wheel and sdist (`dists`, tests/conftest.py) and one clean venv (`venv_bin`) per worker
    "tests/test_packaging.py": "dists",
    "tests/test_ci_templates.py": "dists",
    "tests/test_examples_ci.py": "dists",
    # each release is migrated once per process (`migrate`, `_MIGRATIONS`)
    "tests/realworld/test_releases.py": "realworld",
    # the first `fix` of each case is kept for the test after it (`_FIXED_ONCE`)
    "tests/test_fixed_point.py": "fixed-point",
    # each tree's dry run is made once per process (`_CHANGED`)
    "tests/test_import_safety_property.py": "import-safety",
    # module-scoped fixtures
    "tests/test_no_torch.py": "test_no_torch",
    "tests/test_prefilter_search.py": "test_prefilter_search",
}

# CPU seconds (user + system, the test process and the processes it waited for) that a group, a test file or
# one test took in a full run (measured 2026-12-01, see docs/development.md). A file's figure is shared
# evenly among its tests; a test or a group takes its own. Only the order of the units depends on them: a
# figure that is off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {}

# A test that no figure covers: about what the typical test costs.
DEFAULT_COST = 0.3


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file's group, or the test alone."""
    return WORKER_GROUPS.get(nodeid.split("::", 1)[0], nodeid)


def unit_cost(unit: str, nodeids: list[str], per_file: Mapping[str, int]) -> float:
    """The expected CPU seconds of a unit holding `nodeids` (`per_file`: the collection's tests per file)."""
    if unit in COSTS:
        return COSTS[unit]
    total = 0.0
    for nodeid in nodeids:
        path = nodeid.split("::", 1)[0]
        if nodeid in COSTS:
            total += COSTS[nodeid]
        elif path in COSTS:
            total += COSTS[path] / per_file[path]
        else:
            total += DEFAULT_COST
    return total


def longest_first(workqueue: Mapping[str, dict]) -> OrderedDict:
    """The units of `workqueue` (unit -> {nodeid: done}) ordered by expected cost, the largest first (ties
    keep their order)."""
    per_file = Counter(nodeid.split("::", 1)[0] for tests in workqueue.values() for nodeid in tests)
    costs = {unit: unit_cost(unit, list(tests), per_file) for unit, tests in workqueue.items()}
    return OrderedDict(sorted(workqueue.items(), key=lambda item: -costs[item[0]]))


def make_scheduler(config, log):
    """pytest-xdist's load-scope scheduler over the units above, longest first."""
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirstScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            # The queue is complete before the first unit is handed out (`schedule`): order it once, then.
            if not self.ordered:
                self.workqueue = longest_first(self.workqueue)
                self.ordered = True
            super()._assign_work_unit(node)

    return LongestFirstScheduling(config, log)
