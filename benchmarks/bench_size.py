"""What size costs: one large file, and many files linked by a shared patch name (issue 12, finding 8).

    python benchmarks/bench_size.py                 # prints the figures; --keep keeps the corpora

Each command runs in a subprocess under `/usr/bin/time -v`; the script prints wall time, CPU time (user +
system: steadier than wall time on a shared machine) and peak resident memory (the largest process of the
run), next to the goals of issue 12: one 4 MB file in under 5 s and
300 MiB; 400 linked files in under 300 MiB.
- `large`: one module of about 4 MB (just under the 4 MiB parse limit): the torch-npu patch module of
  examples/legacy_project, followed by ordinary functions that name FSDP2 symbols, so that the file passes
  the prefilter and is parsed.
- `linked`: 400 modules that each import and call the patch's installer, plus the patch module: every file is
  in the one group whose fix deletes the installer (phase 2 runs them together).
Both are run with `check --no-cache` and `fix --diff --no-cache` (the fix computed, nothing written); the
large file also with `fix --no-cache` on a copy (written, then analysed again).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATCH = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
GOAL_SECONDS, GOAL_MIB = 5.0, 300

FILLER = '''

def helper_{n}(module, fsdp_params):
    """Ordinary code that names FSDP2 internals (a test or a compiler pass would)."""
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives
    values = [p for p in fsdp_params if p is not None]
    total = sum(len(str(v)) for v in values) + {n}
    return _fsdp_collectives, total, "fsdp helper {n}"
'''


def large(folder: Path, size: int = 4 * 1024 * 1024 - 64 * 1024) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'large'\n")
    text = PATCH.read_text()
    parts, n = [text], 0
    while len(text) < size:
        chunk = FILLER.format(n=n)
        parts.append(chunk)
        text_len = len(chunk)
        size -= text_len
        n += 1
    (folder / "big_module.py").write_text("".join(parts))
    return folder


def linked(folder: Path, files: int = 400) -> Path:
    package = folder / "pkg"
    (package / "callers").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'linked'\n")
    (package / "__init__.py").write_text("")
    (package / "callers" / "__init__.py").write_text("")
    (package / "_add_fsdp_patch.py").write_text(PATCH.read_text())
    for n in range(files):
        (package / "callers" / f"caller_{n:03d}.py").write_text(
            "from pkg._add_fsdp_patch import _apply_fsdp_patch\n\n\n"
            f"def setup_{n}():\n    _apply_fsdp_patch()\n    return {n}\n"
        )
    return folder


def measure(command: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds (user + system), peak RSS in MiB, exit status) of `command`, from
    /usr/bin/time -v. On a shared machine the CPU time is the steadier figure."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], cwd=cwd, capture_output=True, text=True)
    report = done.stderr
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", report)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    if wall is None or rss is None:
        raise SystemExit(f"no /usr/bin/time report for {command}:\n{report[-2000:]}")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    status = re.search(r"Exit status: (\d+)", report)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", report))
    return seconds, cpu, int(rss.group(1)) / 1024, int(status.group(1)) if status else done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora")
    parser.add_argument("--files", type=int, default=400, help="files in the linked corpus")
    arguments = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("needs GNU time at /usr/bin/time")
    work = Path(tempfile.mkdtemp(prefix="fsu-bench-size-"))
    environment_python = [sys.executable, "-m", "fsdp_unpatch"]
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    try:
        corpora = {
            "large (one file)": large(work / "large"),
            f"linked ({arguments.files} files)": linked(work / "linked", arguments.files),
        }
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"{'corpus':<22} {'command':<22} {'bytes':>10} {'seconds':>8} {'cpu s':>7} {'peak MiB':>9}  goal")
        for name, folder in corpora.items():
            size = sum(p.stat().st_size for p in folder.rglob("*.py"))
            commands = [
                ("check", ["check", "--no-cache", "--jobs", "1", "."]),
                ("fix --diff", ["fix", "--diff", "--no-cache", "--jobs", "1", "."]),
            ]
            if name.startswith("large"):
                commands.append(("fix (written)", ["fix", "--no-cache", "--jobs", "1", "."]))
            for label, args in commands:
                where = folder
                if label == "fix (written)":  # on a copy: the corpus stays as it was
                    where = work / "large-fixed"
                    shutil.copytree(folder, where)
                seconds, cpu, mib, status = measure([*environment_python, *args, "--output-format", "concise"], where)
                goal = f"< {GOAL_SECONDS:.0f} s, < {GOAL_MIB} MiB" if name.startswith("large") else f"< {GOAL_MIB} MiB"
                met = mib < GOAL_MIB and (seconds < GOAL_SECONDS or not name.startswith("large"))
                print(
                    f"{name:<22} {label:<22} {size:>10} {seconds:>8.2f} {cpu:>7.2f} {mib:>9.0f}  {goal} "
                    f"{'met' if met else 'NOT MET'} (exit {status})"
                )
    finally:
        if arguments.keep:
            print(f"corpora kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
