"""Render a verification: rich tables for people, a dict for `--output-format json`."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from rich.console import Console, JustifyMethod
from rich.table import Table

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


def _num(value: float) -> str:
    if math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    return f"{value:.3g}"


def _loss(values: list[float]) -> str:
    return f"{sum(values) / len(values):.9g}"


def _short_config(config: str) -> str:
    return "reshard on" if config.endswith("True") else "reshard off"


def _overridden(outcome: RunOutcome, target: str) -> bool:
    return bool((outcome.meta or {}).get("targets", {}).get(target, {}).get("overridden"))


def _replacement(outcome: RunOutcome, target: str) -> str:
    current = (outcome.meta or {}).get("targets", {}).get(target, {}).get("current", "?")
    return "(gone: its op packet was replaced by a function)" if current == "<missing>" else current


def _display_path(path: str) -> str:
    """Relative to the working directory when below it, else as is."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _run_line(outcome: RunOutcome) -> str:
    installers = ", ".join(str(s) for s in outcome.spec.installers) or "none (native torch)"
    paths = f" [dim]from {', '.join(_display_path(p) for p in outcome.spec.paths)}[/dim]" if outcome.spec.paths else ""
    return f"  [bold]{outcome.spec.label}[/bold]: {installers}{paths} ({outcome.seconds:.1f} s)"


def render(v: Verification, console: Console) -> None:
    t = v.training
    a, b = v.patched.spec.label, v.migrated.spec.label
    console.print(
        f"[bold]fsdp-unpatch verify[/bold]: world size {t.world_size}, device {t.device} ({t.backend}), "
        f"{t.steps} steps x {len(t.reshard_after_forward)} configurations, seed {t.seed}, "
        f"mixed precision param={t.param_dtype} reduce={t.reduce_dtype}; "
        f"comparison: {v.comparison.tolerance.describe()}",
        highlight=False,
        soft_wrap=True,
    )
    console.print(_run_line(v.patched), highlight=False, soft_wrap=True)
    console.print(_run_line(v.migrated), highlight=False, soft_wrap=True)

    steps = Table(title="Per-step comparison", title_justify="left")
    steps.add_column("config")
    steps.add_column("step", justify="right")
    steps.add_column(f"loss ({a})", justify="right")
    steps.add_column(f"loss ({b})", justify="right")
    steps.add_column("max abs diff", justify="right")
    steps.add_column("status")
    for row in v.comparison.rows:
        if row.match:
            status = "[green]match[/green]"
        else:
            what = ", ".join(w for w, ok in (("loss", row.loss_match), ("grads", row.grad_match)) if not ok)
            label = "DIVERGED (first)" if row.first_divergence else "diverged"
            status = f"[red]{label}[/red]: {what}"
        steps.add_row(
            _short_config(row.config), str(row.step), _loss(row.loss_a), _loss(row.loss_b), _num(row.max_diff), status
        )
    console.print(steps)
    console.print(
        "  loss: mean over ranks; max abs diff: over every rank's loss and every gradient of the step",
        style="dim",
        highlight=False,
    )

    tensors = Table(title="Parameters and gradients", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("tensors", "left"),
        ("config", "left"),
        ("equal", "right"),
        ("max abs diff", "right"),
        ("worst", "left"),
    )
    for column, justify in columns:
        tensors.add_column(column, justify=justify)
    for s in v.comparison.tensors:
        equal = f"{s.equal}/{s.compared}"
        tensors.add_row(
            s.what,
            _short_config(s.config),
            f"[green]{equal}[/green]" if s.match else f"[red]{equal}[/red]",
            _num(s.max_diff),
            s.worst or "-",
        )
    console.print(tensors)

    r = v.targets
    table = Table(title="Install targets (what each run's installers replaced)", title_justify="left")
    table.add_column("target", no_wrap=True)
    for column in ("kind", a, b, "check"):
        table.add_column(column, no_wrap=True)
    for kind, targets, always in (
        ("remove", v.collective_watch, COLLECTIVE_TARGETS),
        ("keep", v.enhance_watch, ENHANCE_TARGETS),
    ):
        for target in targets:
            if target not in always and not (_overridden(v.patched, target) or _overridden(v.migrated, target)):
                continue  # other catalog targets are listed only when a run replaces them
            cell_a = "replaced" if _overridden(v.patched, target) else "-"
            cell_b = "replaced" if _overridden(v.migrated, target) else "-"
            if kind == "keep":
                if target in r.enhance_missing:
                    check = "[red]MISSING[/red]"
                else:
                    check = "[green]installed[/green]" if target in r.enhance_b else "-"
            else:
                check = (
                    "[yellow]still replaced[/yellow]"
                    if target in r.collective_b
                    else ("[green]native[/green]" if target in r.collective_a else "-")
                )
            table.add_row(target, kind, cell_a, cell_b, check)
    console.print(table)
    for outcome in (v.patched, v.migrated):
        replaced = [t for t in v.collective_watch if _overridden(outcome, t)]
        if replaced:
            console.print(f"  replacements in the {outcome.spec.label} run:", highlight=False)
            for target in replaced:
                console.print(f"    {target} -> {_replacement(outcome, target)}", highlight=False, soft_wrap=True)
    for label, kernels in ((a, r.kernels_a), (b, r.kernels_b)):
        for op, keys in kernels.items():
            console.print(
                f"  kernels of {op} re-registered in the {label} run for: {', '.join(keys)}",
                highlight=False,
                soft_wrap=True,
            )

    first = v.comparison.first_divergence
    if v.exit_code == EXIT_MATCH:
        console.print(
            f"[green bold]OK[/green bold]: the {a} and {b} runs match "
            f"({len(v.comparison.rows)} steps, {sum(s.compared for s in v.comparison.tensors)} tensors, "
            f"{v.comparison.tolerance.describe()})"
            + (f"; enhance patch still installed ({len(r.enhance_b)} targets)" if r.migrated and r.enhance_b else ""),
            highlight=False,
            soft_wrap=True,
        )
        return
    if first is not None:
        console.print(
            f"[red bold]FAIL[/red bold]: the runs diverge, first at step {first.step} "
            f"({first.config}): loss diff {_num(first.loss_diff)}, gradient diff {_num(first.grad_diff)}",
            highlight=False,
            soft_wrap=True,
        )
    elif not v.comparison.matched:
        console.print("[red bold]FAIL[/red bold]: the final parameters or gradients differ", highlight=False)
    if r.enhance_missing:
        console.print(
            f"[red bold]FAIL[/red bold]: the enhance patch is no longer installed in the {b} run: "
            + ", ".join(r.enhance_missing),
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
