"""`fsdp-unpatch check` next to grep, ripgrep and ruff, in one run, by ratio (issue 14).

    python benchmarks/bench_compare.py --markdown     # --repeat N (5), --scale N (10), --tool DIR, --keep

Corpora (built once in a temporary folder, each with a `pyproject.toml`, so that the cache lives there):
- `torch`: the .py/.pyi sources of the torch installed in this environment (found without importing it);
- `torch-npu`: the `torch_npu/` sources of the torch-npu 2.10.0.post7 release (fetched and cached as the real-release
  tests do, `tests/realworld/packages.py`); it holds the patch;
- `x1` / `x10`: the torch tree once / --scale times (hard links) with the example's patch module planted at the same
  density (--planted / --scale and --planted files), for how the cost grows with the tree.
Per repetition, alternating on each corpus: the reference, the plain grep for the words the tool must find
(`grep -rl --include=*.py -e fsdp -e _foreach_copy_ -e _patched_`, issue 23), `grep -rliF` and `rg -liF` with the
prefilter's first-stage tokens, `ruff check --select F401 --no-cache` (one rule: ruff parses every file), `check`
with a cold cache (the cache folder removed first) and with a warm one; then the one-file pre-commit case (`check`
of the example's patch module, its cache warm, against `ruff check --no-cache` on the same file) and `fix` on a
fresh copy of examples/legacy_project against `ruff check --fix` on another fresh copy. Prints the date, the
machine, the load average before and after, min / median / max of wall time of the N runs, each command's peak
resident memory (the largest process), the ratios of medians and the targets of issue 23.
`--tool DIR` runs the tool from another checkout (PYTHONPATH=DIR), to compare two versions on the same corpora.
The tool runs as pip leaves it installed: its bytecode compiled first, PYTHONDONTWRITEBYTECODE lifted for its
processes (this project's machines set it; figures before 2026-12-02 include compiling the tool in every run).

Start-up (issue 23; `--startup-only` measures just this, in seconds): the import of the CLI and of the `check`
command (as a whole process, beside `python -c pass`, and its own cumulative figure from `-X importtime`), and
the one-file pre-commit case: `check` (its cache warm) and `check --no-cache` on the example's patch file and
on a file with no finding, each against `ruff check --no-cache` on the same file (disk cache warm for both).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scan import EXAMPLE, build_synthetic, copy_sources, machine, torch_sources  # noqa: E402

NPU_RELEASE = "2.10.0.post7"


def corpus_size(folder: Path) -> tuple[int, int]:
    files = size = 0
    for path in folder.rglob("*"):
        if path.suffix in (".py", ".pyi") and path.is_file():
            files += 1
            size += path.stat().st_size
    return files, size


def build(work: Path, scale: int, planted: int) -> dict[str, tuple[Path, str]]:
    """name -> (folder to run in, path argument)."""
    corpora: dict[str, tuple[Path, str]] = {}
    torch = work / "torch"
    if not torch.exists():
        torch.mkdir(parents=True)
        (torch / "pyproject.toml").write_text("[project]\nname = 'bench-torch'\n")
        copy_sources(torch_sources(), torch / "torch")
    corpora["torch"] = (torch, "torch")
    npu = work / "torch-npu"
    if not npu.exists():
        from tests.realworld.packages import Unavailable, sources

        try:
            release = sources(NPU_RELEASE)
        except Unavailable as error:
            print(f"torch-npu {NPU_RELEASE} not available ({error}); left out")
            release = None
        if release is not None:
            npu.mkdir(parents=True)
            (npu / "pyproject.toml").write_text("[project]\nname = 'bench-npu'\n")
            shutil.copytree(release / "torch_npu", npu / "torch_npu")
    if npu.exists():
        corpora[f"torch-npu {NPU_RELEASE}"] = (npu, "torch_npu")
    # `build_synthetic` links `<corpus>/torch`: the torch corpus folder is such a corpus
    build_synthetic(torch, work / "x1", 1, max(1, planted // scale))
    build_synthetic(torch, work / f"x{scale}", scale, planted)
    corpora["x1 (torch + planted patches)"] = (work / "x1", ".")
    corpora[f"x{scale} (same density)"] = (work / f"x{scale}", ".")
    return corpora


# The reference: the plain grep for the words the tool must find (issue 23), the floor a user compares against.
PLAIN_GREP = ["grep", "-rl", "--include=*.py", "-e", "fsdp", "-e", "_foreach_copy_", "-e", "_patched_"]


def spread(values: list[float]) -> str:
    """min / median / max, in seconds."""
    return f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} CPUs)"


def tool_environment(tool: Path) -> dict:
    """The environment the tool's processes run in: the tool imported from `tool`, as pip leaves an installed
    tool, its modules' bytecode compiled. This project's machines export PYTHONDONTWRITEBYTECODE=1, under which
    every process would compile the tool from source again (about 0.1 s of CPU a run)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "fsdp_unpatch", "codemods"], cwd=tool, check=True)
    environment = dict(os.environ, PYTHONPATH=str(tool.resolve()))
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--planted", type=int, default=40)
    parser.add_argument("--tool", type=Path, default=ROOT, help="checkout whose fsdp_unpatch runs (PYTHONPATH)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", default="", help="comma-separated corpus names (torch, torch-npu, x1, x10)")
    parser.add_argument("--startup-only", action="store_true", help="only the import and one-file figures")
    arguments = parser.parse_args()
    if arguments.startup_only:
        return startup(arguments.repeat, tool_environment(arguments.tool))

    from fsdp_unpatch.analysis.prefilter import prefilter_for
    from fsdp_unpatch.catalog import load_catalog

    tokens = [t.decode() for t in prefilter_for(load_catalog()).tokens]
    environment = tool_environment(arguments.tool)
    work = arguments.workdir or Path(tempfile.mkdtemp(prefix="fsdp-unpatch-compare-"))
    rg, ruff = shutil.which("rg"), shutil.which("ruff")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine()}; tool from {arguments.tool}")
    print(f"load average before: {load()}; workdir {work}")
    try:
        corpora = build(work, arguments.scale, arguments.planted)
        if arguments.only:
            wanted = arguments.only.split(",")
            corpora = {n: c for n, c in corpora.items() if n.split(" ")[0] in wanted}
        runs: dict[str, dict[str, list[tuple[float, float]]]] = {name: {} for name in [*corpora, "one file", "fix"]}

        def timed(name: str, label: str, command: list[str], cwd: Path) -> bytes:
            started = time.perf_counter()
            process = subprocess.Popen(
                command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment
            )
            output = process.stdout.read()  # type: ignore[union-attr]
            _, _, usage = os.wait4(process.pid, 0)
            runs[name].setdefault(label, []).append((time.perf_counter() - started, usage.ru_maxrss / 1024))
            return output

        tool = [sys.executable, "-m", "fsdp_unpatch"]
        one_file = work / "one-file"
        one_file.mkdir(exist_ok=True)
        (one_file / "pyproject.toml").write_text("[project]\nname = 'bench-one-file'\n")
        shutil.copyfile(PATCH_FILE, one_file / "patch.py")
        subprocess.run(tool + ["check", "patch.py"], cwd=one_file, capture_output=True, env=environment)  # warm
        for repetition in range(arguments.repeat):
            for name, (folder, target) in corpora.items():
                timed(name, "grep", PLAIN_GREP + [target], folder)
                grep = ["grep", "-rliF", "--include=*.py", "--include=*.pyi"]
                timed(name, "grep tokens", grep + [a for t in tokens for a in ("-e", t)] + [target], folder)
                if rg:
                    rg_command = [rg, "-liF", "--no-ignore", "-g", "*.py", "-g", "*.pyi"]
                    timed(name, "rg -l", rg_command + [a for t in tokens for a in ("-e", t)] + [target], folder)
                if ruff:
                    ruff_command = [ruff, "check", "--select", "F401", "--no-cache", "--exit-zero", "-q", target]
                    timed(name, "ruff F401", ruff_command, folder)
                shutil.rmtree(folder / ".fsdp_unpatch_cache", ignore_errors=True)
                output = timed(name, "check cold", tool + ["check", "--output-format", "json", target], folder)
                if repetition == 0:
                    findings = json.loads(output)
                    removing = len({f["path"] for f in findings if f["category"] == "remove"})
                    print(f"{name}: {len(findings)} findings, {removing} files with remove findings")
                timed(name, "check warm", tool + ["check", "--output-format", "json", target], folder)
            # the pre-commit case: one patch file, the tool's cache warm, against ruff on the same file
            timed("one file", "check", tool + ["check", "patch.py"], one_file)
            if ruff:
                timed("one file", "ruff", [ruff, "check", "--no-cache", "--exit-zero", "-q", "patch.py"], one_file)
            # `fix` of the bundled example, against `ruff check --fix` on another fresh copy of it
            fixes = {"fix": tool + ["fix", "."]}
            if ruff:
                fixes["ruff --fix"] = [ruff, "check", "--fix", "--no-cache", "--exit-zero", "-q", "."]
            for label, command in fixes.items():
                example = work / f"example{repetition}"
                shutil.copytree(EXAMPLE, example)
                timed("fix", label, command, example)
                shutil.rmtree(example)

        def seconds(name: str, label: str) -> list[float]:
            return [s for s, _ in runs[name].get(label, [])]

        def median(name: str, label: str) -> float:
            values = seconds(name, label)
            return statistics.median(values) if values else float("nan")

        print(
            f"\nwall seconds, min / median / max of {arguments.repeat} runs; x grep: ratio of medians to the plain grep"
        )
        header = (
            "| corpus | files | MB | grep (plain) | check cold | x grep | check warm | x grep | ruff F401 | peak MiB |"
        )
        lines = [header, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name, (folder, target) in corpora.items():
            files, size = corpus_size(folder / target)
            grep_s = median(name, "grep")
            peak = max(p for _, p in runs[name]["check cold"])
            lines.append(
                f"| {name} | {files:,} | {size / 1e6:.1f} | {spread(seconds(name, 'grep'))} | "
                f"{spread(seconds(name, 'check cold'))} | {median(name, 'check cold') / grep_s:.1f} | "
                f"{spread(seconds(name, 'check warm'))} | {median(name, 'check warm') / grep_s:.1f} | "
                f"{spread(seconds(name, 'ruff F401')) if ruff else '-'} | {peak:.0f} |"
            )
        print("\n".join(lines) if arguments.markdown else "\n".join(line.replace("|", " ") for line in lines))
        if ruff:
            lines = [
                "| work | reference | reference s | fsdp-unpatch s | ratio |",
                "| --- | --- | ---: | ---: | ---: |",
            ]
            for name, label, reference, what in (
                ("one file", "check", "ruff", "one patch file, cache warm (pre-commit) | `ruff check --no-cache`"),
                ("fix", "fix", "ruff --fix", "`fix` of examples/legacy_project | `ruff check --fix`"),
            ):
                ratio = median(name, label) / median(name, reference)
                cells = f"{spread(seconds(name, reference))} | {spread(seconds(name, label))} | {ratio:.1f}"
                lines.append(f"| {what} | {cells} |")
            print()
            print("\n".join(lines) if arguments.markdown else "\n".join(line.replace("|", " ") for line in lines))
        others = [
            f"{n}: grep -rliF tokens {median(n, 'grep tokens'):.3f} s, rg {median(n, 'rg -l'):.3f} s"
            if rg
            else f"{n}: grep -rliF tokens {median(n, 'grep tokens'):.3f} s"
            for n in corpora
        ]
        print("other references (medians): " + "; ".join(others))
        growth = float("nan")
        if len([n for n in corpora if n.startswith("x")]) == 2:
            x1, x10 = [n for n in corpora if n.startswith("x")]
            growth = median(x10, "check cold") / median(x1, "check cold")
            grep_growth = median(x10, "grep") / median(x1, "grep")
            print(f"growth x1 -> x{arguments.scale}: check cold {growth:.1f}x, grep {grep_growth:.1f}x")
        print(f"load average after: {load()}")

        def ratio(name: str, label: str) -> float:
            return median(name, label) / median(name, "grep")

        npu = f"torch-npu {NPU_RELEASE}"
        goals = []
        if "torch" in corpora:
            goals += [
                ("cold check on torch within 8x the plain grep", ratio("torch", "check cold") <= 8),
                ("warm check on torch within 3x the plain grep", ratio("torch", "check warm") <= 3),
            ]
        if npu in corpora:
            goals += [
                ("cold check on torch-npu within 10x the plain grep", ratio(npu, "check cold") <= 10),
                ("warm check on torch-npu within 3x the plain grep", ratio(npu, "check warm") <= 3),
            ]
        if ruff:
            one = median("one file", "check") / median("one file", "ruff")
            goals.append(("one patch file, warm, within 4x ruff check --no-cache", one <= 4))
            fixed = median("fix", "fix") / median("fix", "ruff --fix")
            goals.append(("fix of the example within 15x ruff check --fix", fixed <= 15))
        if growth == growth:  # measured
            goals.append(
                (f"x{arguments.scale} cold within {arguments.scale + 0.5}x of x1", growth <= arguments.scale + 0.5)
            )
        for goal, met in goals:
            print(f"{'met   ' if met else 'MISSED'} {goal}")
        return 0
    finally:
        if not arguments.keep and arguments.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


# The one-file pre-commit case: the example's patch module, and a module with nothing to report.
PATCH_FILE = EXAMPLE / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
CLEAN_SOURCE = "import os\n\n\ndef here():\n    return os.getcwd()\n"


def _wall(command: list[str], cwd: Path, environment: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    return time.perf_counter() - started


TOP_LEVEL_IMPORT = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| \S")  # one space: not nested


def _top_level_ms(arguments: list[str], cwd: Path, environment: dict) -> float:
    """The sum of the top-level imports `python -X importtime ARGUMENTS` reports, in ms."""
    command = [sys.executable, "-X", "importtime", *arguments]
    lines = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=environment).stderr.splitlines()
    return sum(int(found.group(1)) for found in map(TOP_LEVEL_IMPORT.match, lines) if found) / 1000


def _import_ms(cwd: Path, environment: dict) -> tuple[float, float]:
    """What the CLI and the `check` command import before they run, and what a `check --no-cache clean.py`
    imports in all, in ms from `-X importtime`, the interpreter's own start-up (`-c pass`) left out."""
    start = _top_level_ms(["-c", "pass"], cwd, environment)
    cli = _top_level_ms(["-c", "import fsdp_unpatch.cli, fsdp_unpatch.commands.lint"], cwd, environment)
    run = _top_level_ms(["-m", "fsdp_unpatch", "check", "--no-cache", "clean.py"], cwd, environment)
    return cli - start, run - start


def startup(repeat: int, environment: dict) -> int:
    """Medians of `repeat` runs (after one warm-up each) of the start-up figures; the targets of issue 23."""
    ruff = shutil.which("ruff")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="fsdp-unpatch-startup-") as folder:
        work = Path(folder)
        (work / "pyproject.toml").write_text("[project]\nname = 'bench-startup'\n")
        shutil.copyfile(PATCH_FILE, work / "patch.py")
        (work / "clean.py").write_text(CLEAN_SOURCE)
        tool = [sys.executable, "-m", "fsdp_unpatch", "check"]
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import fsdp_unpatch.cli": [sys.executable, "-c", "import fsdp_unpatch.cli, fsdp_unpatch.commands.lint"],
            "check patch.py": tool + ["patch.py"],  # the cache warm: pre-commit runs on a file it saw before
            "check --no-cache patch.py": tool + ["--no-cache", "patch.py"],
            "check clean.py": tool + ["clean.py"],
            "check --no-cache clean.py": tool + ["--no-cache", "clean.py"],
        }
        if ruff:
            commands["ruff patch.py"] = [ruff, "check", "--no-cache", "--exit-zero", "-q", "patch.py"]
            commands["ruff clean.py"] = [ruff, "check", "--no-cache", "--exit-zero", "-q", "clean.py"]
        times: dict[str, list[float]] = {label: [] for label in commands}
        for command in commands.values():
            _wall(command, work, environment)  # warm-up: the disk cache, the bytecode cache
        imports = []
        for _ in range(repeat):
            for label, command in commands.items():  # in turn, so that a drift of the machine hits all alike
                times[label].append(_wall(command, work, environment))
            imports.append(_import_ms(work, environment))
    medians = {label: statistics.median(values) for label, values in times.items()}
    for label, value in medians.items():
        print(
            f"{label:<26} {value:.3f} s (median of {repeat}; min {min(times[label]):.3f}, max {max(times[label]):.3f})"
        )
    import_ms = statistics.median(cli for cli, _ in imports)
    print(f"imports of the CLI and `check` (-X importtime): {import_ms:.0f} ms (median of {repeat})")
    run_ms = statistics.median(run for _, run in imports)
    print(f"imports of `check --no-cache clean.py`, all (-X importtime): {run_ms:.0f} ms (median of {repeat})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    goals = [("import of the CLI at most 60 ms", import_ms <= 60)]
    for name in ("patch.py", "clean.py"):
        for check in ("check", "check --no-cache"):
            if f"ruff {name}" in medians:
                ratio = medians[f"{check} {name}"] / medians[f"ruff {name}"]
                print(f"{check} / ruff on {name}: {ratio:.1f}x")
                goals.append((f"{check} {name} within 4x ruff check --no-cache", ratio <= 4))
    for goal, met in goals:
        print(f"{'met   ' if met else 'MISSED'} {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
