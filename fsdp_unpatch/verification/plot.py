"""`verify --plot FILE`: the loss of both runs at every step and their absolute difference, one column of
plots per configuration (reshard_after_forward on and off). Needs matplotlib (`fsdp-unpatch[plot]`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import N_, Phrase
from fsdp_unpatch.i18n import gettext as _

FORMATS = (".png", ".svg", ".pdf")
INSTALL_HINT = "pip install 'fsdp-unpatch[plot]'"


class PlotError(Exception):
    """A plot that cannot be drawn (raised with a `Phrase`)."""


def check_plot_target(path: str) -> None:
    """Fail before training, not after: a format matplotlib is not asked to guess, and matplotlib itself."""
    if Path(path).suffix.lower() not in FORMATS:
        raise PlotError(Phrase("--plot {path}: the file must end in {formats}", path=path, formats=", ".join(FORMATS)))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotError(
            Phrase("--plot needs matplotlib, which is not installed. Install it with: {hint}", hint=INSTALL_HINT)
        ) from None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


IDENTICAL_TOP = 1e-6  # the difference axis when every difference is 0: a scale for "none", not matplotlib's ±0.055
HEADROOM = 1.15  # above the largest difference, so its marker is not cut


def _difference_top(diffs: list[float]) -> float:
    peak = max((d for d in diffs if math.isfinite(d)), default=0.0)  # a diverged step (nan, inf) has no scale
    return peak * HEADROOM if peak > 0 else IDENTICAL_TOP


# Fonts with Chinese characters, as matplotlib names them (Linux, macOS, Windows): the plot speaks Chinese only
# with one of them, since matplotlib's own font (DejaVu Sans) draws a box for each Chinese character.
CHINESE_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Sarasa Gothic SC",
    "Droid Sans Fallback",
    "AR PL UMing CN",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "SimHei",
)


def chinese_font() -> Optional[str]:
    """The first of `CHINESE_FONTS` that matplotlib knows, or None."""
    from matplotlib import font_manager

    known = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CHINESE_FONTS if name in known), None)


def write_plot(comparison, path: str, labels: tuple[str, str] = ("patched", "migrated")) -> bool:
    """Draw the plot; True when its words are in the reader's language (False: Chinese was asked for, but
    matplotlib has no font for it, so the words are English)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    font = chinese_font() if i18n.language() != i18n.ENGLISH else None
    in_language = font is not None or i18n.language() == i18n.ENGLISH
    with matplotlib.rc_context():
        if font is not None:
            matplotlib.rcParams["font.sans-serif"] = [font, "DejaVu Sans"]
            matplotlib.rcParams["axes.unicode_minus"] = False  # a Chinese font may lack U+2212
        _draw(comparison, path, labels, _ if in_language else _english)
    return in_language


def _english(text: str) -> str:
    return text


def _draw(comparison, path: str, labels: tuple[str, str], say) -> None:
    import matplotlib.pyplot as plt

    from fsdp_unpatch.verification.report import LABELS

    shown = tuple(say(LABELS.get(name, name)) for name in labels)
    configs = list(dict.fromkeys(row.config for row in comparison.rows))
    figure, axes = plt.subplots(2, len(configs), figsize=(5.5 * len(configs), 6.5), squeeze=False, sharex="col")
    for column, config in enumerate(configs):
        rows = [row for row in comparison.rows if row.config == config]
        steps = [row.step for row in rows]
        loss, diff = axes[0][column], axes[1][column]
        loss.plot(steps, [_mean(r.loss_a) for r in rows], marker="o", label=shown[0])
        loss.plot(steps, [_mean(r.loss_b) for r in rows], marker="x", linestyle="--", label=shown[1])
        loss.set_title(config)
        loss.set_ylabel(say(N_("loss (mean over ranks)")))
        loss.legend()
        diffs = [r.max_diff for r in rows]
        diff.plot(steps, diffs, marker="o", color="tab:red")
        diff.set_ylim(0, _difference_top(diffs))  # an absolute difference: from 0, up to the data
        if not any(diffs):
            diff.text(0.5, 0.5, say(N_("identical: every difference is 0")), transform=diff.transAxes, ha="center")
        diff.set_xlabel(say(N_("step")))
        diff.set_ylabel(say(N_("max abs difference (loss, grads)")))
        diff.set_xticks(steps)
    figure.suptitle(say(N_("fsdp-unpatch verify: {a} vs {b}")).format(a=shown[0], b=shown[1]))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
