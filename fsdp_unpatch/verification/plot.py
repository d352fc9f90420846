"""`verify --plot FILE`: the loss of both runs at every step and their absolute difference, one column of
plots per configuration (reshard_after_forward on and off). Needs matplotlib (`fsdp-unpatch[plot]`)."""

from __future__ import annotations

import math
from pathlib import Path

FORMATS = (".png", ".svg", ".pdf")
INSTALL_HINT = "pip install 'fsdp-unpatch[plot]'"


class PlotError(Exception):
    pass


def check_plot_target(path: str) -> None:
    """Fail before training, not after: a format matplotlib is not asked to guess, and matplotlib itself."""
    if Path(path).suffix.lower() not in FORMATS:
        raise PlotError(f"--plot {path}: the file must end in {', '.join(FORMATS)}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotError(f"--plot needs matplotlib, which is not installed. Install it with: {INSTALL_HINT}") from None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


IDENTICAL_TOP = 1e-6  # the difference axis when every difference is 0: a scale for "none", not matplotlib's ±0.055
HEADROOM = 1.15  # above the largest difference, so its marker is not cut


def _difference_top(diffs: list[float]) -> float:
    peak = max((d for d in diffs if math.isfinite(d)), default=0.0)  # a diverged step (nan, inf) has no scale
    return peak * HEADROOM if peak > 0 else IDENTICAL_TOP


def write_plot(comparison, path: str, labels: tuple[str, str] = ("patched", "migrated")) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    configs = list(dict.fromkeys(row.config for row in comparison.rows))
    figure, axes = plt.subplots(2, len(configs), figsize=(5.5 * len(configs), 6.5), squeeze=False, sharex="col")
    for column, config in enumerate(configs):
        rows = [row for row in comparison.rows if row.config == config]
        steps = [row.step for row in rows]
        loss, diff = axes[0][column], axes[1][column]
        loss.plot(steps, [_mean(r.loss_a) for r in rows], marker="o", label=labels[0])
        loss.plot(steps, [_mean(r.loss_b) for r in rows], marker="x", linestyle="--", label=labels[1])
        loss.set_title(config)
        loss.set_ylabel("loss (mean over ranks)")
        loss.legend()
        diffs = [r.max_diff for r in rows]
        diff.plot(steps, diffs, marker="o", color="tab:red")
        diff.set_ylim(0, _difference_top(diffs))  # an absolute difference: from 0, up to the data
        if not any(diffs):
            diff.text(0.5, 0.5, "identical: every difference is 0", transform=diff.transAxes, ha="center")
        diff.set_xlabel("step")
        diff.set_ylabel("max abs difference (loss, grads)")
        diff.set_xticks(steps)
    figure.suptitle(f"fsdp-unpatch verify: {labels[0]} vs {labels[1]}")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
