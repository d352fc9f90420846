"""The parent side of `verify`: launch one run's worker processes, wait, collect what they wrote.

Each run gets fresh interpreters (one per rank), its own directory as working directory, its own
file store for the rendezvous, and its own import roots. The two runs of a verification may use the
same package name (a legacy tree and its migrated copy), so they never share a process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from fsdp_unpatch.i18n import Phrase
from fsdp_unpatch.verification.spec import RunSpec, TrainingSpec, WorkerConfig
from fsdp_unpatch.verification.targets import WatchList

_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    "import sys\n"
    f"sys.path.append({_PACKAGE_PARENT!r})\n"
    "from fsdp_unpatch.verification.training import main\n"
    "sys.exit(main())\n"
)
# How long the other ranks may take to notice that one rank failed before they are stopped.
_GRACE_SECONDS = 10.0


@dataclass
class RunOutcome:
    spec: RunSpec
    option: str
    directory: Path
    meta: Optional[dict] = None
    results: Optional[list] = None
    error_kind: Optional[str] = None  # "setup", "training", "timeout", "crash"
    error: Optional[str] = None  # a `Phrase` when it has words of this tool's
    seconds: float = 0.0
    returncodes: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error_kind is None and self.results is not None


@dataclass
class _Job:
    outcome: RunOutcome
    procs: list
    started: float
    first_failure: Optional[float] = None


def _tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _start(run: RunSpec, option: str, training: TrainingSpec, watch: WatchList, workdir: Path) -> _Job:
    directory = workdir / run.label
    directory.mkdir(parents=True, exist_ok=False)
    config = WorkerConfig(
        run=run,
        training=training,
        watch=watch.to_json(),
        outdir=str(directory),
        store=str(directory / "rendezvous.store"),
        extra={"option": option},
    )
    config_path = directory / "config.json"
    config.dump(config_path)
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    procs = []
    for rank in range(training.world_size):
        stdout = open(directory / f"stdout.rank{rank}.log", "wb")
        stderr = open(directory / f"stderr.rank{rank}.log", "wb")
        try:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", _BOOT, str(config_path), str(rank)],
                    cwd=directory,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=stdout,
                    stderr=stderr,
                )
            )
        finally:
            stdout.close()
            stderr.close()
    return _Job(RunOutcome(run, option, directory), procs, time.perf_counter())


def _finish(job: _Job, timed_out: bool) -> RunOutcome:
    import torch

    outcome = job.outcome
    outcome.seconds = round(time.perf_counter() - job.started, 3)
    outcome.returncodes = [p.returncode for p in job.procs]
    directory = outcome.directory
    errors = []
    for path in sorted(directory.glob("error.rank*.json")):
        try:
            errors.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    setup = [e for e in errors if e.get("kind") == "setup"]
    if setup:
        said = setup[0].get("phrase")
        outcome.error_kind = "setup"
        outcome.error = setup[0]["message"]
        if isinstance(said, dict):
            try:
                outcome.error = Phrase.from_json(said)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):  # written by another version
                pass
    elif errors:
        first = errors[0]
        outcome.error_kind = "training"
        outcome.error = f"rank {first['rank']}: {first['message']}"
    elif timed_out:
        outcome.error_kind = "timeout"
        outcome.error = Phrase(
            "the run did not finish in time; worker logs are in {directory}", directory=str(directory)
        )
    elif any(code != 0 for code in outcome.returncodes):
        rank = next(i for i, code in enumerate(outcome.returncodes) if code != 0)
        outcome.error_kind = "crash"
        outcome.error = Phrase(
            "rank {rank} exited with code {code}:\n{log}",
            rank=rank,
            code=outcome.returncodes[rank],
            log=_tail(directory / f"stderr.rank{rank}.log"),
        )
    else:
        try:
            outcome.meta = json.loads((directory / "meta.json").read_text())
            outcome.results = torch.load(directory / "result.pt", weights_only=True)
        except Exception as exc:  # a worker that exited 0 without writing its results
            outcome.error_kind = "crash"
            error = f"{type(exc).__name__}: {exc}"
            outcome.error = Phrase("rank 0 wrote no usable results ({error})", error=error)
    return outcome


def launch(
    runs: list[tuple[RunSpec, str]],
    training: TrainingSpec,
    watch: WatchList,
    workdir: Path,
    timeout: float,
    parallel: bool,
) -> list[RunOutcome]:
    """Run each (run, option-name) pair's workers; concurrently when `parallel`.

    Returns the outcomes in the order of `runs`; after a failed run, the runs not started yet are
    skipped, so the list can be shorter.
    """
    outcomes: dict[int, RunOutcome] = {}
    pending = list(enumerate(runs))
    active: dict[int, _Job] = {}
    try:
        while pending or active:
            while pending and (parallel or not active):
                index, (run, option) = pending.pop(0)
                active[index] = _start(run, option, training, watch, workdir)
            time.sleep(0.05)
            now = time.perf_counter()
            for index, job in list(active.items()):
                codes = [p.poll() for p in job.procs]
                if all(code is not None for code in codes):
                    outcomes[index] = _finish(job, timed_out=False)
                    del active[index]
                    if not outcomes[index].ok:
                        pending.clear()  # the verification cannot succeed: do not start the next run
                    continue
                if job.first_failure is None and any(code not in (None, 0) for code in codes):
                    job.first_failure = now
                late = job.first_failure is not None and now - job.first_failure > _GRACE_SECONDS
                if late or now - job.started > timeout:
                    for proc in job.procs:
                        if proc.poll() is None:
                            proc.kill()
                    for proc in job.procs:
                        proc.wait()
                    outcomes[index] = _finish(job, timed_out=not late)
                    del active[index]
                    pending.clear()
    finally:
        for job in active.values():  # interrupted: stop the workers this call started
            for proc in job.procs:
                if proc.poll() is None:
                    proc.kill()
            for proc in job.procs:
                proc.wait()
    return [outcomes[i] for i in sorted(outcomes)]
