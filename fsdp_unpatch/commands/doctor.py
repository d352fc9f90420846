"""`fsdp-unpatch doctor`: check, on this machine, what removing the FSDP2 collectives patch depends on."""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Callable

import click

from fsdp_unpatch.i18n import N_, Phrase, translated
from fsdp_unpatch.i18n import gettext as _

STYLE = {"ok": "green", "warn": "yellow", "fail": "red bold", "skip": "dim"}


def _guarded(name: str, probe: Callable[[], list]) -> list:
    """Run a probe; one that raises becomes a warning instead of a traceback."""
    from fsdp_unpatch.verification.probes import Check

    try:
        return probe()
    except Exception as exc:  # a probe is evidence, not a requirement: report and go on
        error = f"{type(exc).__name__}: {exc}"
        return [Check(name, "warn", Phrase("the probe could not run: {error}", error=error))]


@click.command(
    "doctor",
    epilog="Statuses: ok, warn, fail, skip (does not apply here). Exit status: 0 no fail, 1 at least one fail, "
    "2 usage error.",
)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--device", default=None, help="cpu, cuda, npu, ... [default: the accelerator if there is one, else cpu]")
@click.option(
    "--target-torch",
    default=None,
    metavar="X.Y",
    help="Compare the catalog's versions with this torch release instead of the installed one "
    "(for a release branch that pins another torch).",
)
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def doctor(paths, device, target_torch, output_format) -> None:
    """Check the preconditions of the migration on this machine.

    With PATHs, the torch version is compared with the catalog's "native since" release of every
    removable override found there; without, with every removable override in the catalog. Then:
    whether native FSDP's ops have kernels for the device's dispatch key (and PrivateUse1, where
    NPU kernels live), which accelerator plugin is installed, and, on an accelerator, whether a large
    same-device torch._foreach_copy_ returns to the host before the copy is done (device-async).
    """
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import MissingPath
    from fsdp_unpatch.verification import probes

    if target_torch is not None:
        try:
            Version.parse(target_torch)
        except ValueError as exc:
            raise click.BadParameter(translated(exc), param_hint="--target-torch") from None

    installed = probes.distribution_version("torch")
    checks = [probes.check_torch_installed(installed, target_torch)]
    version = target_torch or installed
    source = "--target-torch" if target_torch else Phrase("installed torch")

    native = probes.native_since_table()
    if paths:
        try:
            found = probes.scan_overrides(paths, Version.parse(version) if version else Version(99, 0))
        except MissingPath as exc:
            raise click.BadParameter(
                _("no such file or directory: {path}").format(path=exc), param_hint="PATH"
            ) from None
        requirements = probes.requirements_for(found, native)
        if not requirements:
            checks.append(
                probes.Check(
                    Phrase("overrides in the scanned tree"),
                    "ok",
                    Phrase("no override with a torch requirement found in {paths}", paths=", ".join(paths)),
                )
            )
    else:  # no tree to scan: the overrides the migration removes
        requirements = [probes.Requirement(t, since) for t, since in probes.native_since_table(["remove"]).items()]
    checks += probes.check_torch_versions(version, source, requirements)

    torch_importable = installed is not None and importlib.util.find_spec("torch") is not None
    keys: list[str] = []
    if torch_importable:
        device = device or _guarded_device(probes)
        keys = [probes.dispatch_key_for(device)]
        if "PrivateUse1" not in keys:
            keys.append("PrivateUse1")  # where torch_npu's kernels live, whatever this machine is
        checks += _guarded(Phrase("native FSDP ops"), lambda: probes.check_fsdp_kernels(keys))
        checks += _guarded(Phrase("kernel aten::_foreach_copy_"), lambda: [probes.check_foreach_copy_kernel(device)])
    else:
        device = device or "cpu"
        checks.append(probes.Check(Phrase("native FSDP ops"), "skip", Phrase("torch is not installed")))
    checks += probes.check_plugins(probes.installed_plugins(), installed)
    if torch_importable:
        checks += _guarded(probes.ASYNC_PROBE, lambda: [probes.probe_foreach_copy_async(device)])
    else:
        checks.append(probes.Check(probes.ASYNC_PROBE, "skip", Phrase("torch is not installed")))

    code = probes.exit_code(checks)
    counts = probes.summarize(checks)
    if output_format == "json":
        payload = {
            "device": device,
            "dispatch_keys": keys,
            "torch": installed,
            "target_torch": target_torch,
            "paths": list(paths),
            "checks": [c.to_dict() for c in checks],
            "summary": counts,
            "exit_code": code,
        }
        click.echo(json.dumps(payload, indent=2))
        sys.exit(code)

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)
    # Text, not markup, for what the probes say: a message such as "pip install 'fsdp-unpatch[verify]'" must
    # print as it is. The status words stay as `--help` and the JSON name them (ok, warn, fail, skip).
    title = Text("fsdp-unpatch doctor", style="bold")
    title.append(
        _(": torch {torch}, device {device}").format(torch=installed or _("not installed"), device=device)
        + (_(" (dispatch keys {keys})").format(keys=", ".join(keys)) if keys else "")
    )
    console.print(title, soft_wrap=True)
    table = Table(show_header=True, header_style="bold")
    table.add_column(_("status"))
    table.add_column(_("check"), overflow="fold", max_width=52)
    table.add_column(_("why"), overflow="fold", ratio=1)
    for check in checks:
        row = (Text(check.status, style=STYLE[check.status]), Text(translated(check.name)))
        table.add_row(*row, Text(translated(check.message)))
    console.print(table)
    summary = Text(_("{ok} ok, {warn} warn, {fail} fail, {skip} skip").format(**counts) + " -> ")
    summary.append(_(VERDICTS[bool(code)]), style="red bold" if code else "green")
    console.print(summary, soft_wrap=True)
    sys.exit(code)


VERDICTS = {False: N_("OK"), True: N_("FAIL")}


def _guarded_device(probes) -> str:
    try:
        return probes.detect_device()
    except Exception:
        return "cpu"
