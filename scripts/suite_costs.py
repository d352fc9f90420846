"""The test scheduler's figures (`COSTS` in tests/scheduling.py) from a measured run of the whole suite.

    python -m pytest -q --junitxml=/tmp/suite.xml          # a full run, two workers, on an idle machine
    python scripts/suite_costs.py /tmp/suite.xml            # print the figures
    python scripts/suite_costs.py /tmp/suite.xml --write    # replace them in tests/scheduling.py

A group of `WORKER_GROUPS` gets the sum of its tests; any other test function (its parameters summed) gets its
own figure when it reaches `--floor` seconds; the rest is left to `DEFAULT_COST`. The seconds are the run's
wall time per test: each worker runs one test at a time, so on an idle machine that is the test's CPU time.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEDULING = ROOT / "tests" / "scheduling.py"
sys.path.insert(0, str(ROOT))

from tests.scheduling import WORKER_GROUPS  # noqa: E402

_BLOCK = re.compile(r"(COSTS: Mapping\[str, float\] = \{\n)(.*?)(\n\})", re.S)


def costs(junit: Path, floor: float) -> dict[str, float]:
    """Seconds by unit (a group's name, or `FILE::FUNCTION`), largest first; units under `floor` left out."""
    seconds: Counter[str] = Counter()
    for case in ElementTree.parse(junit).iter("testcase"):
        path = case.get("classname", "").replace(".", "/") + ".py"
        function = case.get("name", "").split("[", 1)[0]
        unit = f"{path}::{function}"
        seconds[WORKER_GROUPS.get(unit, WORKER_GROUPS.get(path, unit))] += float(case.get("time", 0))
    return {unit: round(value, 1) for unit, value in seconds.most_common() if value >= floor}


def block(figures: dict[str, float]) -> str:
    return "\n".join(f"    {unit!r}: {value}," for unit, value in figures.items()).replace("'", '"')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("junit", type=Path, help="the junit XML of a full run (pytest --junitxml)")
    parser.add_argument("--floor", type=float, default=2.0, help="seconds under which a unit gets no figure")
    parser.add_argument("--write", action="store_true", help="replace the figures in tests/scheduling.py")
    arguments = parser.parse_args()
    text = block(costs(arguments.junit, arguments.floor))
    if not arguments.write:
        print(text)
        return 0
    source = SCHEDULING.read_text()
    if not _BLOCK.search(source):
        print(f"{SCHEDULING}: no COSTS block found", file=sys.stderr)
        return 1
    SCHEDULING.write_text(_BLOCK.sub(lambda m: m.group(1) + text + m.group(3), source, count=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
