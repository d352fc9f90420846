"""`verify`'s training runs made once per test process (tests/test_verify.py, tests/test_verify_path.py: one
worker group, tests/scheduling.py).

A run is a pure function of what `launch` is given for it: its RunSpec (label, installers, import roots), the
option that named it, the TrainingSpec (seed, steps, world size, device, dtypes) and the watch list. Two
verifications that give the same run the same inputs (the example's patched run with `--steps 2`, named by
`--patch` options in one file and found by the analysis in the other) train it once; the second is answered
with the first's outcome. A failed run is never kept.
"""

from __future__ import annotations

import json
from typing import Callable

import pytest

from fsdp_unpatch.verification import runner
from fsdp_unpatch.verification.runner import RunOutcome

_REAL_LAUNCH = runner.launch
# run inputs (`_key`) -> the outcome of the run that succeeded with them
_MEMO: dict[str, RunOutcome] = {}


def _key(run, option: str, training, watch) -> str:
    return json.dumps([repr(run), option, repr(training), watch.to_json()], sort_keys=True, default=repr)


def launch_once(launch: Callable) -> Callable:
    """`launch` (runner.launch's signature) answering a run it has made with the same inputs from `_MEMO`."""

    def launching(runs, training, watch, workdir, timeout, parallel):
        missing = [(run, option) for run, option in runs if _key(run, option, training, watch) not in _MEMO]
        made = iter(launch(missing, training, watch, workdir, timeout, parallel) if missing else [])
        outcomes: list[RunOutcome] = []
        for run, option in runs:
            key = _key(run, option, training, watch)
            outcome = _MEMO.get(key) or next(made, None)
            if outcome is None:  # launch stopped after a failed run: so does this
                break
            outcomes.append(outcome)
            if not outcome.ok:
                break
            _MEMO[key] = outcome
        return outcomes

    return launching


@pytest.fixture(autouse=True)
def trainings_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Install `launch_once` for a test module that imports this fixture."""
    monkeypatch.setattr(runner, "launch", launch_once(_REAL_LAUNCH))
