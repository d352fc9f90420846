"""`fsdp-unpatch verify`: train the same small FSDP2 job with the old patch and with the migrated code,
in fresh processes, and compare every step."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from fsdp_unpatch.i18n import N_, translated
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.run.progress import Phases, phases_shown
from fsdp_unpatch.verification.spec import InstallerSpec, RunSpec, SpecError, TrainingSpec, backend_for

INSTALL_HINT = "pip install 'fsdp-unpatch[verify]'"


def _installers(option: str, values: tuple[str, ...]) -> tuple[InstallerSpec, ...]:
    specs = []
    for value in values:
        try:
            specs.append(InstallerSpec.parse(value))
        except SpecError as exc:
            raise click.UsageError(_("{option}: {problem}").format(option=option, problem=translated(exc))) from None
    return tuple(specs)


def _fail(message: str) -> None:
    click.echo(_("error: {message}").format(message=translated(message)), err=True)
    sys.exit(2)


@click.command(
    "verify",
    epilog=(
        "Example (the bundled example project):\n\n"
        "\b\n"
        "  fsdp-unpatch verify \\\n"
        "    --patch legacy_npu.distributed.fsdp._add_fsdp_patch:_apply_fsdp_enhance_patch \\\n"
        "    --patch legacy_npu.distributed.fsdp._add_fsdp_patch:_apply_fsdp_patch \\\n"
        "    --patch-path examples/legacy_project \\\n"
        "    --migrated legacy_npu.distributed.fsdp._add_fsdp_patch:_apply_fsdp_enhance_patch \\\n"
        "    --migrated-path examples/migrated_project\n\n"
        "or, letting the tool find the installers and make the migrated copy with `fix`:\n\n"
        "\b\n"
        "  fsdp-unpatch verify examples/legacy_project\n\n"
        "Exit status: 0 the runs match (and the enhance patch is still installed), 1 they differ, "
        "2 usage or setup error."
    ),
)
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--patch",
    "patch",
    multiple=True,
    metavar="MODULE:FUNCTION",
    help="Installer of the old patch, called with no arguments before fully_shard. Repeat to call several, in order.",
)
@click.option(
    "--patch-path",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, resolve_path=True),
    metavar="DIR",
    help="Directory put first on sys.path of the patched run's workers (the root that holds the package).",
)
@click.option(
    "--migrated",
    multiple=True,
    metavar="MODULE:FUNCTION",
    help="Installer of the migrated code (for example the enhance patch that stays). "
    "Without it, the second run is plain torch.",
)
@click.option(
    "--migrated-path",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, resolve_path=True),
    metavar="DIR",
    help="Directory put first on sys.path of the migrated run's workers.",
)
@click.option("--world-size", type=click.IntRange(min=1), default=2, show_default=True, help="Processes per run.")
@click.option("--device", default=None, help="cpu, cuda, npu, ... [default: the accelerator if any, else cpu]")
@click.option(
    "--backend", default=None, help="torch.distributed backend [default: gloo for cpu, nccl for cuda, hccl for npu]"
)
@click.option(
    "--steps", type=click.IntRange(min=1), default=4, show_default=True, help="Training steps per configuration."
)
@click.option("--seed", type=int, default=0, show_default=True, help="The random seed, the same in both runs.")
@click.option(
    "--rtol",
    type=click.FloatRange(min=0),
    default=None,
    help="Compare with torch.allclose and this rtol (atol 0 unless given).",
)
@click.option(
    "--atol",
    type=click.FloatRange(min=0),
    default=None,
    help="Compare with torch.allclose and this atol (rtol 0 unless given).",
)
@click.option(
    "--timeout", type=click.FloatRange(min=1), default=300, show_default=True, help="Seconds allowed per run."
)
@click.option(
    "--parallel",
    is_flag=True,
    help="Start both runs at once instead of one after the other (faster with more cores than 2 x world size).",
)
@click.option("--keep-workdir", is_flag=True, help="Keep the workers' directory (configs, logs, results).")
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
@click.option(
    "--plot",
    metavar="FILE.png",
    type=click.Path(dir_okay=False),
    help="Also draw both runs' loss per step and their absolute difference (needs fsdp-unpatch[plot]).",
)
def verify(
    path,
    patch,
    patch_path,
    migrated,
    migrated_path,
    world_size,
    device,
    backend,
    steps,
    seed,
    rtol,
    atol,
    timeout,
    parallel,
    keep_workdir,
    output_format,
    plot,
) -> None:
    """Prove that a migration keeps FSDP2 training identical.

    With PATH (a project folder) and no --patch/--migrated, the installers are found by the same
    analysis as `check` (the enhance installers, FSU201, and the removed ones, FSU003), and the migrated
    code is a copy of PATH that `fix` migrated, in a temporary folder.

    Trains a small model with FSDP2 (mixed precision bf16/fp32, three fully_shard groups plus the
    root, reshard_after_forward on and off) twice, each time in fresh worker processes: once with
    the --patch installers applied, once with the --migrated ones. Compares the loss of every step,
    every step's gradients and the final parameters, exactly unless --rtol/--atol is given, and
    checks that the enhance targets the patched run installs are still installed in the migrated run.
    """
    if path is not None and (patch or migrated or patch_path or migrated_path):
        raise click.UsageError(_("give either PATH or --patch/--migrated (with their paths), not both"))
    patch_specs = _installers("--patch", patch)
    migrated_specs = _installers("--migrated", migrated)
    if path is None and not patch_specs and not migrated_specs:
        raise click.UsageError(
            _(
                "give a project folder (PATH), or the old patch with --patch MODULE:FUNCTION "
                "(and the migrated code with --migrated)"
            )
        )
    if patch_path and not patch_specs:
        raise click.UsageError(_("--patch-path without --patch"))
    if migrated_path and not migrated_specs:
        raise click.UsageError(_("--migrated-path without --migrated"))
    if plot is not None:
        from fsdp_unpatch.verification.plot import PlotError, check_plot_target

        try:
            check_plot_target(plot)
        except PlotError as exc:
            _fail(translated(exc))

    try:
        import torch  # noqa: F401
    except ImportError:
        _fail(_("verify needs PyTorch, which is not installed. Install it with: {hint}").format(hint=INSTALL_HINT))

    from rich.console import Console

    from fsdp_unpatch.verification.compare import Tolerance, compare_results, compare_targets
    from fsdp_unpatch.verification.probes import detect_device
    from fsdp_unpatch.verification.report import ERROR_KINDS, Verification, label, render, to_json

    device = device or detect_device()
    try:
        backend = backend_for(device, backend)
    except SpecError as exc:
        raise click.UsageError(translated(exc)) from None
    training = TrainingSpec(world_size=world_size, device=device, backend=backend, steps=steps, seed=seed)
    workdir = Path(tempfile.mkdtemp(prefix="fsdp-unpatch-verify-"))
    keep = keep_workdir
    phases = Phases(phases_shown(sys.stderr, os.environ, output_format))
    try:
        with phases:
            if path is not None:
                phases.now(N_("Migrating a copy of the tree"))
                patch_specs, patch_path, migrated_specs, migrated_path = _from_tree(path, workdir, output_format)
            phases.now(N_("Training the patched and the migrated runs"))
            outcomes = _launch(
                patch_specs, patch_path, migrated_specs, migrated_path, training, workdir, timeout, parallel
            )
        runs, watch, outcomes = outcomes
        failed = [o for o in outcomes if not o.ok]
        if failed or len(outcomes) != len(runs):
            for outcome in failed:
                where = ""
                if outcome.error_kind != "setup":
                    where = "\n" + _("(worker logs kept in {directory})").format(directory=outcome.directory)
                kind = outcome.error_kind or ""
                failure = _("the {label} run failed ({kind}): {error}").format(
                    label=label(outcome.spec.label),
                    kind=_(ERROR_KINDS[kind]) if kind in ERROR_KINDS else kind,
                    error=translated(outcome.error or ""),
                )
                click.echo(_("error: {message}").format(message=failure + where), err=True)
            keep = keep or any(o.error_kind != "setup" for o in failed)
            sys.exit(2)
        patched, other = outcomes
        # runs that did not fail have their results and meta
        assert patched.results is not None and other.results is not None
        assert patched.meta is not None and other.meta is not None
        comparison = compare_results(patched.results, other.results, Tolerance(rtol, atol))
        targets = compare_targets(
            patched.meta, other.meta, watch.collective, watch.enhance, migrated=bool(migrated_specs)
        )
        result = Verification(training, patched, other, comparison, targets, watch.collective, watch.enhance)
        if output_format == "json":
            click.echo(json.dumps(to_json(result), indent=2))
        else:
            # a fixed width when piped, so that logs and the README show the tables unwrapped
            render(result, Console(highlight=False, width=None if sys.stdout.isatty() else 132))
            if keep:
                click.echo(_("worker directory: {path}").format(path=workdir))
        if plot is not None:
            from fsdp_unpatch.verification.plot import write_plot

            in_language = write_plot(comparison, plot, (patched.spec.label, other.spec.label))
            if output_format != "json":
                click.echo(_("plot: {path}").format(path=plot))
                if not in_language:
                    click.echo(
                        _(
                            "the plot's words are in English: matplotlib knows no font with Chinese characters "
                            "(install one, such as Noto Sans CJK SC)"
                        ),
                        err=True,
                    )
        sys.exit(result.exit_code)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _launch(patch_specs, patch_path, migrated_specs, migrated_path, training, workdir, timeout, parallel):
    """The two training runs, patched and migrated (or native): (runs, watch list, outcomes)."""
    from fsdp_unpatch.verification.runner import launch
    from fsdp_unpatch.verification.targets import watch_list

    runs = [
        (RunSpec("patched", patch_specs, tuple(patch_path)), "--patch"),
        (RunSpec("migrated" if migrated_specs else "native", migrated_specs, tuple(migrated_path)), "--migrated"),
    ]
    watch = watch_list()
    return runs, watch, launch(runs, training, watch, workdir, timeout=timeout, parallel=parallel)


def _from_tree(path: str, workdir: Path, output_format: str):
    """(patch specs, patch paths, migrated specs, migrated paths) worked out from the tree at PATH."""
    from fsdp_unpatch.verification.autodetect import DetectError, detect, migrated_copy

    try:
        detected = detect(path)
        copies = migrated_copy(path, detected, workdir / "migrated-tree")
    except DetectError as exc:
        _fail(translated(exc))
    patch_specs = tuple(i.spec for i in detected.enhance + detected.removed)
    migrated_specs = tuple(i.spec for i in detected.enhance)
    patch_paths = tuple(str(root) for root in detected.roots)
    migrated_paths = tuple(str(copies[root]) for root in detected.roots)
    if output_format != "json":
        click.echo(
            _(
                "fsdp-unpatch verify {path}: the old patch calls {patch}; the migrated copy (made by "
                "`fsdp-unpatch fix` in {copy}) calls {migrated}"
            ).format(
                path=path,
                patch=", ".join(map(str, patch_specs)),
                copy=copies[detected.roots[0]],
                migrated=", ".join(map(str, migrated_specs)) or _("nothing (plain torch)"),
            )
        )
    return patch_specs, patch_paths, migrated_specs, migrated_paths
