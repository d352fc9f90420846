"""Does cost grow linearly with file size and with the number of findings? (issue 34, item 4)

    python benchmarks/bench_linear.py                  # the sizes of issue 34; --repeat N (3)
    python benchmarks/bench_linear.py --scale 0.05     # every size times 0.05: a quick loop for profiling
    python benchmarks/bench_linear.py --only list,small,many
    python benchmarks/bench_linear.py --only many --cold-repeat 1   # the 1,000-package cold check once

Corpora, generated at run time in a temporary folder (each with a `pyproject.toml`, so the cache lives there):
- `list`: the example's patch module whose installer also builds one list of 1.2 million elements (3.6 MB);
- `small`: the example's patch module followed by small functions that name FSDP2 symbols, to 3.9 MB
  (benchmarks/bench_size.py's `large` shape);
- `many`: 1,000 packages, each a copy of the example's patch module plus four ordinary modules, with 51 more
  ordinary modules beside them (5,051 files, 1,000 patch copies); and `one`, a single such package, whose time
  times the copies is the yardstick of the cold `check`.
Each command runs as a whole process of the installed tool under `/usr/bin/time -v` (`--jobs 1`); the script
prints the date, the machine, the load average before and after, and per command the median of wall time,
CPU time (user + system: steadier on a shared machine) and peak resident memory over the repetitions, with the
goals of issue 34: a 4 MB file in under 30 s and 1 GB (`check` and `fix`); cold `check` of `many` within 10x
`one` times the copies; a warm `check` after `fix` within 2x a warm `check` of the unchanged tree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scan import machine  # noqa: E402
from bench_size import FILLER, PATCH, measure  # noqa: E402

from fsdp_unpatch.run.cache import CACHE_DIR  # noqa: E402

GOAL_SECONDS, GOAL_MIB = 30.0, 1024
ORDINARY = '''"""An ordinary module of package {package}."""

import os


def work_{n}(values):
    return [os.path.join(str(v), "{n}") for v in values]
'''


def _project(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(f"[project]\nname = '{name}'\n")


def with_list(folder: Path, scale: float) -> Path:
    """The patch module whose installer also builds a list of 1.2 million (times `scale`) elements."""
    _project(folder, "bench-list")
    elements = max(1, int(1_200_000 * scale))
    text = PATCH.read_text()
    head = "def _apply_fsdp_patch():\n"
    table = "    _table = [" + "0, " * elements + "]\n"
    if head not in text:
        raise SystemExit(f"{PATCH} no longer defines {head.strip()}")
    (folder / "patch_with_list.py").write_text(text.replace(head, head + table, 1))
    return folder


def small_functions(folder: Path, scale: float) -> Path:
    """The patch module followed by small functions, to 3.9 MB (times `scale`)."""
    _project(folder, "bench-small")
    size = int(3.9 * 1000 * 1000 * scale)
    parts, length, n = [PATCH.read_text()], 0, 0
    while length < size:
        parts.append(FILLER.format(n=n))
        length += len(parts[-1])
        n += 1
    (folder / "small_functions.py").write_text("".join(parts))
    return folder


def packages(folder: Path, copies: int, loose: int) -> Path:
    """`copies` packages of one patch copy and four ordinary modules each, and `loose` ordinary modules."""
    _project(folder, f"bench-many-{copies}")
    patch = PATCH.read_text()
    for copy in range(copies):
        package = folder / f"pkg_{copy:04d}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "_add_fsdp_patch.py").write_text(patch)
        for n in range(3):
            (package / f"module_{n}.py").write_text(ORDINARY.format(package=copy, n=n))
    for n in range(loose):
        (folder / f"loose_{n:03d}.py").write_text(ORDINARY.format(package="root", n=n))
    return folder


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} CPUs)"


def medians(runs: int, once: Callable[[], tuple[float, float, float, int]]) -> tuple[float, float, float, int]:
    """Median wall, CPU and peak MiB of `runs` calls of `once`, and the last exit status."""
    figures = [once() for _ in range(runs)]
    return (
        statistics.median(f[0] for f in figures),
        statistics.median(f[1] for f in figures),
        statistics.median(f[2] for f in figures),
        figures[-1][3],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cold-repeat", type=int, help="repetitions of the many-packages cold check (each is minutes; --repeat)"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size (quick loops: 0.05)")
    parser.add_argument("--only", default="list,small,many", help="comma-separated: list, small, many")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora")
    arguments = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("needs GNU time at /usr/bin/time")
    only = set(arguments.only.split(","))
    tool = [sys.executable, "-m", "fsdp_unpatch"]
    concise = ["--output-format", "concise", "--jobs", "1"]
    work = Path(tempfile.mkdtemp(prefix="fsu-bench-linear-"))
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine()}; scale {arguments.scale}")
    print(f"load average before: {load()}; medians of {arguments.repeat} runs")
    print(f"{'corpus':<26} {'command':<22} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}  goal")

    def row(corpus: str, label: str, figures: tuple[float, float, float, int], goal: str) -> None:
        wall, cpu, mib, status = figures
        print(f"{corpus:<26} {label:<22} {wall:>8.2f} {cpu:>8.2f} {mib:>9.0f}  {goal} (exit {status})", flush=True)

    def fresh(source: Path, name: str) -> Path:
        target = work / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
        return target

    try:
        large = {}
        if "list" in only:
            large["list (1 installer list)"] = with_list(work / "list", arguments.scale)
        if "small" in only:
            large["small functions"] = small_functions(work / "small", arguments.scale)
        for name, folder in large.items():
            size = sum(p.stat().st_size for p in folder.rglob("*.py"))
            corpus = f"{name} {size / 1e6:.1f} MB"
            for label, args in (("check", ["check", "--no-cache"]), ("fix", ["fix", "--no-cache"])):
                figures = medians(
                    arguments.repeat,
                    lambda args=args, label=label, folder=folder: measure(
                        [*tool, *args, *concise, "."], fresh(folder, label)
                    ),
                )
                met = figures[1] < GOAL_SECONDS and figures[2] < GOAL_MIB  # CPU: the machine is shared
                row(
                    corpus,
                    label,
                    figures,
                    f"CPU < {GOAL_SECONDS:.0f} s, < {GOAL_MIB} MiB {'met' if met else 'NOT MET'}",
                )
        if "many" in only:
            copies = max(1, int(1000 * arguments.scale))
            loose = max(1, int(51 * arguments.scale))
            one = packages(work / "one", 1, 1)
            many = packages(work / "many", copies, loose)
            cold = ["check", *concise, "."]
            cache = CACHE_DIR  # cleared for a cold run

            def cold_check(folder: Path) -> tuple[float, float, float, int]:
                shutil.rmtree(folder / cache, ignore_errors=True)
                return measure([*tool, *cold], folder)

            single = medians(arguments.repeat, lambda: cold_check(one))
            row("one package", "cold check", single, "")
            cold_many = medians(arguments.cold_repeat or arguments.repeat, lambda: cold_check(many))
            bound = 10 * single[1] * copies
            row(
                f"{copies} packages",
                "cold check",
                cold_many,
                f"CPU < 10 x one x {copies} = {bound:.0f} s {'met' if cold_many[1] < bound else 'NOT MET'}",
            )
            measure([*tool, *cold], many)  # the cache warm
            unchanged = medians(arguments.repeat, lambda: measure([*tool, *cold], many))
            row(f"{copies} packages", "warm check, unchanged", unchanged, "")
            fixed = fresh(many, "many-fixed")
            row(f"{copies} packages", "fix", measure([*tool, "fix", *concise, "."], fixed), "(one run)")
            row(f"{copies} packages", "first check after fix", measure([*tool, *cold], fixed), "(one run)")
            after = medians(arguments.repeat, lambda: measure([*tool, *cold], fixed))
            met = after[1] < 2 * unchanged[1]
            row(
                f"{copies} packages",
                "warm check after fix",
                after,
                f"CPU < 2 x unchanged = {2 * unchanged[1]:.1f} s {'met' if met else 'NOT MET'}",
            )
    finally:
        print(f"load average after: {load()}")
        if arguments.keep:
            print(f"corpora kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
