"""Compare the results of two runs: losses per step, gradients per step, final parameters, and
which watched targets each run's installers replaced."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

from fsdp_unpatch.i18n import N_, Phrase


@dataclass(frozen=True)
class Tolerance:
    """Exact (`torch.equal`) when both are None; otherwise `torch.allclose(rtol, atol)`, a missing
    one counting as 0."""

    rtol: Optional[float] = None
    atol: Optional[float] = None

    @property
    def exact(self) -> bool:
        return self.rtol is None and self.atol is None

    def describe(self) -> str:
        """How runs are compared: English (the JSON's `comparison`), a `Phrase` when it has words."""
        if self.exact:
            return Phrase("exact (torch.equal)")
        return f"torch.allclose(rtol={self.rtol or 0:g}, atol={self.atol or 0:g})"

    def same(self, a: Any, b: Any) -> bool:
        import torch

        if a is None or b is None:
            return a is None and b is None
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if self.exact:
            # torch.equal, except that NaN matches NaN in the same place
            return torch.equal(a, b) or torch.allclose(a, b, rtol=0.0, atol=0.0, equal_nan=True)
        return torch.allclose(a, b, rtol=self.rtol or 0.0, atol=self.atol or 0.0, equal_nan=True)


def max_abs_diff(a: Any, b: Any) -> float:
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    if a.shape != b.shape:
        return math.inf
    if a.numel() == 0:
        return 0.0
    a64, b64 = a.double(), b.double()
    diff = (a64 - b64).abs()
    both_nan = a64.isnan() & b64.isnan()
    diff = diff.masked_fill(both_nan, 0.0).nan_to_num(nan=math.inf)
    return float(diff.max())


def config_name(reshard: bool) -> str:
    return f"reshard_after_forward={reshard}"


@dataclass
class StepRow:
    config: str
    step: int  # 1-based
    loss_a: list[float]  # per rank
    loss_b: list[float]
    loss_diff: float
    grad_diff: float
    loss_match: bool
    grad_match: bool
    first_divergence: bool = False

    @property
    def match(self) -> bool:
        return self.loss_match and self.grad_match

    @property
    def max_diff(self) -> float:
        return max(self.loss_diff, self.grad_diff)


@dataclass
class TensorSummary:
    what: str  # PARAMETERS or GRADIENTS (English; the table translates it)
    config: str
    compared: int
    equal: int
    max_diff: float
    worst: Optional[str]
    mismatched: list[str] = field(default_factory=list)

    @property
    def match(self) -> bool:
        return self.compared == self.equal


@dataclass
class Comparison:
    tolerance: Tolerance
    rows: list[StepRow]
    tensors: list[TensorSummary]

    @property
    def matched(self) -> bool:
        return all(r.match for r in self.rows) and all(t.match for t in self.tensors)

    @property
    def first_divergence(self) -> Optional[StepRow]:
        diverged = [r for r in self.rows if r.first_divergence]
        return min(diverged, key=lambda r: r.step) if diverged else None


def _compare_dicts(what: str, config: str, a: dict, b: dict, tol: Tolerance) -> TensorSummary:
    names = sorted(set(a) | set(b))
    mismatched = [n for n in names if not (n in a and n in b and tol.same(a[n], b[n]))]
    diffs = {n: (max_abs_diff(a[n], b[n]) if n in a and n in b else math.inf) for n in names}
    worst = max(names, key=lambda n: diffs[n], default=None)
    if worst is not None and diffs[worst] == 0.0:
        worst = mismatched[0] if mismatched else None  # e.g. a dtype change with equal values
    return TensorSummary(
        what, config, len(names), len(names) - len(mismatched), diffs[worst] if worst else 0.0, worst, mismatched
    )


PARAMETERS, GRADIENTS = N_("parameters (final)"), N_("gradients (last step)")


def compare_results(a: list[dict], b: list[dict], tol: Tolerance = Tolerance()) -> Comparison:
    """`a` and `b` are the workers' results: one dict per reshard configuration."""
    rows: list[StepRow] = []
    tensors: list[TensorSummary] = []
    for conf_a, conf_b in zip(a, b):
        config = config_name(conf_a["reshard_after_forward"])
        diverged = False
        for step, (la, lb, ga, gb) in enumerate(
            zip(conf_a["losses"], conf_b["losses"], conf_a["grads"], conf_b["grads"]), start=1
        ):
            grad_names = sorted(set(ga) | set(gb))
            grad_match = all(n in ga and n in gb and tol.same(ga[n], gb[n]) for n in grad_names)
            grad_diff = max(
                (max_abs_diff(ga.get(n), gb.get(n)) if n in ga and n in gb else math.inf for n in grad_names),
                default=0.0,
            )
            row = StepRow(
                config=config,
                step=step,
                loss_a=[float(v) for v in la],
                loss_b=[float(v) for v in lb],
                loss_diff=max_abs_diff(la, lb),
                grad_diff=grad_diff,
                loss_match=tol.same(la, lb),
                grad_match=grad_match,
            )
            if not row.match and not diverged:
                row.first_divergence = diverged = True
            rows.append(row)
        tensors.append(_compare_dicts(PARAMETERS, config, conf_a["params"], conf_b["params"], tol))
        tensors.append(
            _compare_dicts(
                GRADIENTS,
                config,
                conf_a["grads"][-1] if conf_a["grads"] else {},
                conf_b["grads"][-1] if conf_b["grads"] else {},
                tol,
            )
        )
    return Comparison(tol, rows, tensors)


# ---------------------------------------------------------------------------------------------
# Install targets
# ---------------------------------------------------------------------------------------------
@dataclass
class TargetReport:
    collective_a: list[str]  # collective targets the first run's installers replaced
    collective_b: list[str]
    enhance_a: list[str]
    enhance_b: list[str]
    kernels_a: dict
    kernels_b: dict
    migrated: bool  # the second run has installers of its own

    @property
    def enhance_missing(self) -> list[str]:
        """Enhance targets the patched run installs and the migrated run no longer does."""
        if not self.migrated:
            return []
        return [t for t in self.enhance_a if t not in self.enhance_b]

    @property
    def ok(self) -> bool:
        return not self.enhance_missing


def overridden(meta: dict, targets: tuple[str, ...]) -> list[str]:
    return [t for t in targets if meta.get("targets", {}).get(t, {}).get("overridden")]


def compare_targets(
    meta_a: dict, meta_b: dict, collective: tuple[str, ...], enhance: tuple[str, ...], migrated: bool
) -> TargetReport:
    return TargetReport(
        collective_a=overridden(meta_a, collective),
        collective_b=overridden(meta_b, collective),
        enhance_a=overridden(meta_a, enhance),
        enhance_b=overridden(meta_b, enhance),
        kernels_a=meta_a.get("kernels_reregistered", {}),
        kernels_b=meta_b.get("kernels_reregistered", {}),
        migrated=migrated,
    )
