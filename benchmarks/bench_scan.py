"""How fast `fsdp-unpatch check` scans a PyTorch-sized tree, next to `grep -rl` over the same files.

    python benchmarks/bench_scan.py            # 5 repetitions; add --markdown for the docs table

Corpora (built once in a temporary folder, removed at the end unless --keep):
- `torch`: the Python sources (.py, .pyi) of the torch package installed in this environment, found
  without importing torch, copied under `corpus/torch/` (a `pyproject.toml` above it holds the cache);
- `synthetic`: that tree --scale times (hard links), plus the torch-npu patch module of
  examples/legacy_project planted in --planted files; the script checks that exactly those files get
  `remove` findings;
- `synthetic1`: the same at x1 with --planted / --scale planted files (the same patch density), so that
  the x10 / x1 ratio shows how the cost grows with the tree.
Per repetition, alternating: `grep -rliF` with the prefilter's first-stage tokens, `check` with a cold cache
(cache folder removed), `check` with a warm cache; then `fix` on a fresh copy of examples/legacy_project.
Prints medians, the ratio to grep, and the peak resident memory of each run (of the largest process).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PATCH = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
EXAMPLE = ROOT / "examples" / "legacy_project"
SUFFIXES = (".py", ".pyi")


def torch_sources() -> Path:
    spec = importlib.util.find_spec("torch")  # locates the package; does not import it
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed in this environment")
    return Path(list(spec.submodule_search_locations)[0])


def copy_sources(source: Path, destination: Path, link: bool = False) -> tuple[int, int]:
    files = size = 0
    for folder, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        target = destination / os.path.relpath(folder, source)
        for name in names:
            if name.endswith(SUFFIXES):
                target.mkdir(parents=True, exist_ok=True)
                path = os.path.join(folder, name)
                (os.link if link else shutil.copyfile)(path, target / name)
                files += 1
                size += os.path.getsize(path)
    return files, size


def measure(command: list[str], cwd: Path) -> tuple[float, float, bytes]:
    """(seconds, peak RSS in MiB of the command's largest process, stdout)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = process.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024, output


def tool(*args: str) -> list[str]:
    return [sys.executable, "-m", "fsdp_unpatch", *args]


def grep_command(tokens: list[bytes], folder: Path) -> list[str]:
    command = ["grep", "-rliF", "--include=*.py", "--include=*.pyi"]
    for token in tokens:
        command += ["-e", token.decode()]
    return command + [str(folder)]


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def build_synthetic(corpus: Path, folder: Path, scale: int, planted: int) -> set[str]:
    """`scale` hard-linked copies of the torch corpus with the example's patch module planted in `planted`
    files; returns the planted files' paths relative to `folder`."""
    if not folder.exists():
        folder.mkdir()
        (folder / "pyproject.toml").write_text(f"[project]\nname = 'bench-{folder.name}'\n")
        for copy in range(scale):
            copy_sources(corpus / "torch", folder / f"copy{copy}" / "torch", link=True)
    paths = set()
    for number in range(planted):
        path = folder / f"copy{number % scale}" / f"npu_branch{number}" / "_add_fsdp_patch.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PATCH, path)
        paths.add(str(path.relative_to(folder)))
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=int, default=10, help="copies of the torch tree in the synthetic corpus")
    parser.add_argument("--planted", type=int, default=40, help="patch files planted in the synthetic corpus")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs for check (default: the tool's)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the corpora")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    arguments = parser.parse_args()

    from fsdp_unpatch.analysis.prefilter import prefilter_for
    from fsdp_unpatch.catalog import load_catalog

    tokens = list(prefilter_for(load_catalog()).tokens)
    work = arguments.workdir or Path(tempfile.mkdtemp(prefix="fsdp-unpatch-bench-"))
    corpus, synthetic = work / "corpus", work / "synthetic"
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d')}; workdir {work}")
    try:
        if not corpus.exists():
            corpus.mkdir(parents=True)
            (corpus / "pyproject.toml").write_text("[project]\nname = 'bench-torch'\n")
            copy_sources(torch_sources(), corpus / "torch")
        files, size = sum(1 for p in (corpus / "torch").rglob("*") if p.suffix in SUFFIXES), 0
        size = sum(p.stat().st_size for p in (corpus / "torch").rglob("*") if p.suffix in SUFFIXES)
        # The same tree at x1 and x{scale}, with patches planted at the same density: how cost grows.
        small = work / "synthetic1"
        planted = build_synthetic(corpus, synthetic, arguments.scale, arguments.planted)
        planted_small = build_synthetic(corpus, small, 1, max(1, arguments.planted // arguments.scale))
        print(
            f"torch corpus: {files} files, {size / 1e6:.1f} MB; synthetic1: x1 + {len(planted_small)} planted "
            f"patch files; synthetic: x{arguments.scale} + {len(planted)} planted patch files"
        )

        jobs = ["--jobs", str(arguments.jobs)] if arguments.jobs else []
        rows: dict[str, list[tuple[float, float]]] = {}
        for repetition in range(arguments.repeat):
            for name, folder in (("torch", corpus), ("synthetic1", small), ("synthetic", synthetic)):
                target = "torch" if name == "torch" else "."
                rows.setdefault(f"{name}: grep -rl", []).append(
                    measure(grep_command(tokens, folder / target if name == "torch" else folder), folder)[:2]
                )
                shutil.rmtree(folder / ".fsdp_unpatch_cache", ignore_errors=True)
                seconds, peak, output = measure(tool("check", "--output-format", "json", *jobs, target), folder)
                rows.setdefault(f"{name}: check, cold cache", []).append((seconds, peak))
                if repetition == 0:
                    findings = json.loads(output)
                    removing = {f["path"] for f in findings if f["category"] == "remove"}
                    expected = {"synthetic": planted, "synthetic1": planted_small}.get(name, set())
                    if removing != expected:
                        print(f"MISMATCH in {name}: remove findings in {len(removing)} files, planted {len(expected)}")
                        return 1
                    print(f"{name}: {len(findings)} findings; files with remove findings: {len(removing)}")
                seconds, peak, _ = measure(tool("check", "--output-format", "json", *jobs, target), folder)
                rows.setdefault(f"{name}: check, warm cache", []).append((seconds, peak))
            example = work / f"example{repetition}"
            shutil.copytree(EXAMPLE, example)
            rows.setdefault("example: fix", []).append(measure(tool("fix", "."), example)[:2])
            shutil.rmtree(example)

        medians = {
            key: (statistics.median(s for s, _ in values), max(p for _, p in values)) for key, values in rows.items()
        }
        lines = ["| run | median s | x grep | peak MiB |", "| --- | ---: | ---: | ---: |"]
        for key, (seconds, peak) in medians.items():
            grep = medians.get(key.split(":")[0] + ": grep -rl")
            ratio = f"{seconds / grep[0]:.1f}" if grep and "grep" not in key and "example" not in key else ""
            lines.append(f"| {key} | {seconds:.3f} | {ratio} | {peak:.0f} |")
        growth = medians["synthetic: check, cold cache"][0] / medians["torch: check, cold cache"][0]
        same_density = medians["synthetic: check, cold cache"][0] / medians["synthetic1: check, cold cache"][0]
        print()
        print("\n".join(lines) if arguments.markdown else "\n".join(line.replace("|", " ") for line in lines))
        print(f"\nsynthetic (x{arguments.scale}) cold / torch cold: {growth:.1f}x")
        print(f"synthetic (x{arguments.scale}) cold / synthetic1 (x1, same patch density) cold: {same_density:.1f}x")
        torch_cold, torch_warm = medians["torch: check, cold cache"][0], medians["torch: check, warm cache"][0]
        grep = medians["torch: grep -rl"][0]
        goals = [
            ("cold check over torch within 10x grep", torch_cold <= 10 * grep),
            ("cold check over torch under 2 s", torch_cold < 2),
            ("warm check over torch within 3x grep", torch_warm <= 3 * grep),
            (f"x{arguments.scale} tree at most {arguments.scale}x the cost of torch", growth <= arguments.scale),
            (
                f"x{arguments.scale} tree at most {arguments.scale}x the cost of x1 at the same patch density",
                same_density <= arguments.scale,
            ),
            ("peak memory under 300 MiB", all(p < 300 for _, p in medians.values())),
            ("fix on the example under 1 s", medians["example: fix"][0] < 1),
        ]
        for goal, met in goals:
            print(f"{'met   ' if met else 'MISSED'} {goal}")
        return 0
    finally:
        if not arguments.keep and arguments.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
