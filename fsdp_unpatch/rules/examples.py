"""A rule's examples, as Fixit writes them: `VALID` samples it must not fire on, `INVALID` samples it must
fire on, each one file of code. An invalid sample may carry `fixed`, the file as `fix --unsafe-fixes`
leaves it. `tests/test_rule_examples.py` runs every rule module's examples."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Valid:
    code: str
    path: str = "example.py"  # a test module (`test_x.py`) where the rule is about tests


@dataclass(frozen=True)
class Invalid:
    code: str
    fixed: Optional[str] = None  # the file after `fix --unsafe-fixes`; None: not compared
    path: str = "example.py"
