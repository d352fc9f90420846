"""`verify --plot`'s difference axis scales to the data (issue 31, item 8): runs that match bit for bit drew on
matplotlib's default ±0.055 (ticks at ±0.04), and a tiny difference showed a negative absolute difference."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("matplotlib")


def _axes_of(tmp_path: Path, diffs: list[float], monkeypatch) -> tuple[float, float]:
    import matplotlib.pyplot as plt

    from fsdp_unpatch.verification.plot import write_plot

    closed = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda figure: (closed.append(figure), real_close(figure)))
    rows = [
        SimpleNamespace(config="ddp", step=step, loss_a=[1.0 / (step + 1)], loss_b=[1.0 / (step + 1)], max_diff=d)
        for step, d in enumerate(diffs)
    ]
    write_plot(SimpleNamespace(rows=rows), str(tmp_path / "plot.png"))
    assert (tmp_path / "plot.png").stat().st_size > 0
    return closed[0].axes[1].get_ylim()


def test_identical_runs_draw_a_zero_based_axis(tmp_path: Path, monkeypatch) -> None:
    bottom, top = _axes_of(tmp_path, [0.0, 0.0, 0.0], monkeypatch)
    assert bottom == 0 and 0 < top <= 1e-6


def test_a_tiny_difference_fills_the_axis(tmp_path: Path, monkeypatch) -> None:
    bottom, top = _axes_of(tmp_path, [0.0, 3e-7, 1e-7], monkeypatch)
    assert bottom == 0 and 3e-7 < top < 4e-7
