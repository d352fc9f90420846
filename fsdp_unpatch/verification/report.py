"""Render a verification: rich tables for people, in their language, and a dict for `--output-format json`
(English)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from rich.console import Console, JustifyMethod
from rich.table import Table

from fsdp_unpatch.i18n import N_, listed, translated
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.verification.compare import Comparison, TargetReport
from fsdp_unpatch.verification.runner import RunOutcome
from fsdp_unpatch.verification.spec import TrainingSpec
from fsdp_unpatch.verification.targets import COLLECTIVE_TARGETS, ENHANCE_TARGETS

EXIT_MATCH, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2


@dataclass
class Verification:
    training: TrainingSpec
    patched: RunOutcome
    migrated: RunOutcome
    comparison: Comparison
    targets: TargetReport
    collective_watch: tuple[str, ...] = ()
    enhance_watch: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_MATCH if self.comparison.matched and self.targets.ok else EXIT_MISMATCH


# The runs' labels (`RunSpec.label`: also the workers' folders and the JSON's keys) as a reader sees them.
LABELS = {"patched": N_("patched"), "migrated": N_("migrated"), "native": N_("native")}
ERROR_KINDS = {"setup": N_("setup"), "training": N_("training"), "timeout": N_("timeout"), "crash": N_("crash")}


def label(name: str) -> str:
    """A run's label in the reader's language."""
    return _(LABELS[name]) if name in LABELS else name


def _styled(style: str, text: str) -> str:
    return f"[{style}]{text}[/{style}]"


def _num(value: float) -> str:
    if math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    return f"{value:.3g}"


def _loss(values: list[float]) -> str:
    return f"{sum(values) / len(values):.9g}"


def _short_config(config: str) -> str:
    return _("reshard on") if config.endswith("True") else _("reshard off")


def _overridden(outcome: RunOutcome, target: str) -> bool:
    return bool((outcome.meta or {}).get("targets", {}).get(target, {}).get("overridden"))


def _replacement(outcome: RunOutcome, target: str) -> str:
    current = (outcome.meta or {}).get("targets", {}).get(target, {}).get("current", "?")
    return _("(gone: its op packet was replaced by a function)") if current == "<missing>" else current


def _display_path(path: str) -> str:
    """Relative to the working directory when below it, else as is."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _run_line(outcome: RunOutcome) -> str:
    installers = ", ".join(str(s) for s in outcome.spec.installers) or _("none (native torch)")
    paths = ", ".join(_display_path(p) for p in outcome.spec.paths)
    return "  " + _("{label}: {installers}{paths} ({seconds:.1f} s)").format(
        label=f"[bold]{label(outcome.spec.label)}[/bold]",
        installers=installers,
        paths=_styled("dim", _(" from {paths}").format(paths=paths)) if paths else "",
        seconds=outcome.seconds,
    )


def render(v: Verification, console: Console) -> None:
    t = v.training
    a, b = label(v.patched.spec.label), label(v.migrated.spec.label)
    comparison = translated(v.comparison.tolerance.describe())
    console.print(
        _(
            "{command}: world size {world_size}, device {device} ({backend}), {steps} steps x {configurations} "
            "configurations, seed {seed}, mixed precision param={param} reduce={reduce}; comparison: {comparison}"
        ).format(
            command="[bold]fsdp-unpatch verify[/bold]",
            world_size=t.world_size,
            device=t.device,
            backend=t.backend,
            steps=t.steps,
            configurations=len(t.reshard_after_forward),
            seed=t.seed,
            param=t.param_dtype,
            reduce=t.reduce_dtype,
            comparison=comparison,
        ),
        highlight=False,
        soft_wrap=True,
    )
    console.print(_run_line(v.patched), highlight=False, soft_wrap=True)
    console.print(_run_line(v.migrated), highlight=False, soft_wrap=True)

    steps = Table(title=_("Per-step comparison"), title_justify="left")
    steps.add_column(_("config"))
    steps.add_column(_("step"), justify="right")
    steps.add_column(_("loss ({label})").format(label=a), justify="right")
    steps.add_column(_("loss ({label})").format(label=b), justify="right")
    steps.add_column(_("max abs diff"), justify="right")
    steps.add_column(_("status"))
    for row in v.comparison.rows:
        if row.match:
            status = _styled("green", _("match"))
        else:
            what = listed(_(w) for w, ok in ((N_("loss"), row.loss_match), (N_("grads"), row.grad_match)) if not ok)
            verdict = _("DIVERGED (first)") if row.first_divergence else _("diverged")
            status = _("{verdict}: {what}").format(verdict=_styled("red", verdict), what=what)
        steps.add_row(
            _short_config(row.config), str(row.step), _loss(row.loss_a), _loss(row.loss_b), _num(row.max_diff), status
        )
    console.print(steps)
    console.print(
        "  " + _("loss: mean over ranks; max abs diff: over every rank's loss and every gradient of the step"),
        style="dim",
        highlight=False,
    )

    tensors = Table(title=_("Parameters and gradients"), title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        (N_("tensors"), "left"),
        (N_("config"), "left"),
        (N_("equal"), "right"),
        (N_("max abs diff"), "right"),
        (N_("worst"), "left"),
    )
    for column, justify in columns:
        tensors.add_column(_(column), justify=justify)
    for s in v.comparison.tensors:
        equal = f"{s.equal}/{s.compared}"
        tensors.add_row(
            _(s.what),
            _short_config(s.config),
            f"[green]{equal}[/green]" if s.match else f"[red]{equal}[/red]",
            _num(s.max_diff),
            s.worst or "-",
        )
    console.print(tensors)

    r = v.targets
    table = Table(title=_("Install targets (what each run's installers replaced)"), title_justify="left")
    table.add_column(_("target"), no_wrap=True)
    for column in (_("kind"), a, b, _("check")):
        table.add_column(column, no_wrap=True)
    replaced = _("replaced")
    for kind, targets, always in (
        ("remove", v.collective_watch, COLLECTIVE_TARGETS),
        ("keep", v.enhance_watch, ENHANCE_TARGETS),
    ):
        for target in targets:
            if target not in always and not (_overridden(v.patched, target) or _overridden(v.migrated, target)):
                continue  # other catalog targets are listed only when a run replaces them
            cell_a = replaced if _overridden(v.patched, target) else "-"
            cell_b = replaced if _overridden(v.migrated, target) else "-"
            if kind == "keep":
                if target in r.enhance_missing:
                    check = _styled("red", _("MISSING"))
                else:
                    check = _styled("green", _("installed")) if target in r.enhance_b else "-"
            else:
                check = (
                    _styled("yellow", _("still replaced"))
                    if target in r.collective_b
                    else (_styled("green", _("native")) if target in r.collective_a else "-")
                )
            table.add_row(target, kind, cell_a, cell_b, check)
    console.print(table)
    for outcome in (v.patched, v.migrated):
        found = [t for t in v.collective_watch if _overridden(outcome, t)]
        if found:
            console.print(
                "  " + _("replacements in the {label} run:").format(label=label(outcome.spec.label)), highlight=False
            )
            for target in found:
                console.print(f"    {target} -> {_replacement(outcome, target)}", highlight=False, soft_wrap=True)
    for name, kernels in ((a, r.kernels_a), (b, r.kernels_b)):
        for op, keys in kernels.items():
            console.print(
                "  "
                + _("kernels of {op} re-registered in the {label} run for: {keys}").format(
                    op=op, label=name, keys=", ".join(keys)
                ),
                highlight=False,
                soft_wrap=True,
            )

    first = v.comparison.first_divergence
    passed, failed = _styled("green bold", _("OK")), _styled("red bold", _("FAIL"))
    if v.exit_code == EXIT_MATCH:
        still = ""
        if r.migrated and r.enhance_b:
            still = _("; enhance patch still installed ({count} targets)").format(count=len(r.enhance_b))
        console.print(
            _("{verdict}: the {a} and {b} runs match ({steps} steps, {tensors} tensors, {comparison})").format(
                verdict=passed,
                a=a,
                b=b,
                steps=len(v.comparison.rows),
                tensors=sum(s.compared for s in v.comparison.tensors),
                comparison=comparison,
            )
            + still,
            highlight=False,
            soft_wrap=True,
        )
        return
    if first is not None:
        console.print(
            _(
                "{verdict}: the runs diverge, first at step {step} ({config}): loss diff {loss}, gradient diff {grad}"
            ).format(
                verdict=failed,
                step=first.step,
                config=first.config,
                loss=_num(first.loss_diff),
                grad=_num(first.grad_diff),
            ),
            highlight=False,
            soft_wrap=True,
        )
    elif not v.comparison.matched:
        console.print(_("{verdict}: the final parameters or gradients differ").format(verdict=failed), highlight=False)
    if r.enhance_missing:
        console.print(
            _("{verdict}: the enhance patch is no longer installed in the {label} run: {targets}").format(
                verdict=failed, label=b, targets=", ".join(r.enhance_missing)
            ),
            highlight=False,
            soft_wrap=True,
        )


def to_json(v: Verification) -> dict:
    def run(o: RunOutcome) -> dict:
        return {
            **o.spec.to_json(),
            "seconds": o.seconds,
            "modules": (o.meta or {}).get("installers", []),
            "targets": (o.meta or {}).get("targets", {}),
            "kernels_reregistered": (o.meta or {}).get("kernels_reregistered", {}),
        }

    first = v.comparison.first_divergence
    return {
        "training": v.training.to_json(),
        "comparison": v.comparison.tolerance.describe(),
        "runs": {"patched": run(v.patched), "migrated": run(v.migrated)},
        "steps": [
            {
                "config": r.config,
                "step": r.step,
                "loss_patched": r.loss_a,
                "loss_migrated": r.loss_b,
                "loss_max_abs_diff": r.loss_diff,
                "grad_max_abs_diff": r.grad_diff,
                "match": r.match,
                "first_divergence": r.first_divergence,
            }
            for r in v.comparison.rows
        ],
        "tensors": [
            {
                "what": s.what,
                "config": s.config,
                "compared": s.compared,
                "equal": s.equal,
                "max_abs_diff": s.max_diff,
                "worst": s.worst,
                "mismatched": s.mismatched,
            }
            for s in v.comparison.tensors
        ],
        "targets": {
            "collective_overridden": {"patched": v.targets.collective_a, "migrated": v.targets.collective_b},
            "enhance_installed": {"patched": v.targets.enhance_a, "migrated": v.targets.enhance_b},
            "enhance_missing": v.targets.enhance_missing,
        },
        "matched": v.comparison.matched,
        "first_divergence": None if first is None else {"config": first.config, "step": first.step},
        "exit_code": v.exit_code,
    }
