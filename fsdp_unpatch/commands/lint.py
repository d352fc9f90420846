"""`fsdp-unpatch check` and `fsdp-unpatch fix`.

Exit status: 0 nothing to report (keep findings never fail a run), 1 findings remain (or, with
`fix --diff`, the fix would change something), 2 usage or input error.
"""
from __future__ import annotations

import sys
import time
from typing import Optional, Sequence

import click

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _common(function):
    options = [
        click.argument("paths", nargs=-1, type=click.Path()),
        click.option("--output-format", default="full", show_default=True,
                     type=click.Choice(["full", "concise", "json"]), help="How findings are reported."),
        click.option("--target-torch", metavar="X.Y",
                     help="torch release to migrate to (default: the installed torch, else the newest known)."),
        click.option("--select", multiple=True, metavar="CODES", help="Rule codes or prefixes to report."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rule codes or prefixes not to report."),
        click.option("--show-source/--no-show-source", default=True, help="Show the source line of each finding."),
        click.option("--no-color", is_flag=True, help="Never colour the output."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _execute(
    paths: Sequence[str],
    *,
    fix: bool,
    diff: bool,
    unsafe_fixes: bool,
    output_format: str,
    target_torch: Optional[str],
    select: Sequence[str],
    ignore: Sequence[str],
    show_source: bool,
    no_color: bool,
) -> int:
    import os

    from fsdp_unpatch.analysis import Options
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.discovery import MissingPath, discover
    from fsdp_unpatch.reporting import ReportContext, formatter
    from fsdp_unpatch.runner import RunOptions, run
    from fsdp_unpatch.settings import Settings, SettingsError, parse_codes
    from fsdp_unpatch.versions import target_torch as choose_torch

    started = time.perf_counter()
    catalog = load_catalog()
    try:
        known = sorted(catalog.rules)
        settings = Settings(
            select=parse_codes(select, "--select", known) or ("FSU",),
            ignore=parse_codes(ignore, "--ignore", known),
            target_torch=target_torch,
        )
        version, origin = choose_torch(settings.target_torch, catalog.newest_torch)
    except (SettingsError, ValueError) as error:
        click.echo(f"fsdp-unpatch: error: {error}", err=True)
        return EXIT_ERROR
    try:
        candidates = list(discover(paths or (".",)))
    except MissingPath as error:
        click.echo(f"fsdp-unpatch: error: {error}: no such file or directory", err=True)
        return EXIT_ERROR
    options = RunOptions(
        analysis=Options(target_torch=version, keep=settings.keep),
        fix=fix,
        write=not diff,
        unsafe_fixes=unsafe_fixes,
        selected=settings.is_selected,
    )
    result = run(candidates, catalog, options)
    color = not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    context = ReportContext(
        catalog=catalog, fix_mode=fix, show_source=show_source, color=color,
        target_torch=str(version), target_torch_origin=origin, elapsed=time.perf_counter() - started,
    )
    if diff:
        for changed in result.changed:
            sys.stdout.write(changed.diff())
        if output_format == "full":
            from fsdp_unpatch.reporting.text import summary

            click.echo(summary(result, context), err=True)
        else:
            sys.stderr.write(formatter(output_format)(result, context))
    else:
        sys.stdout.write(formatter(output_format)(result, context))
    remaining = result.remaining
    if any(f.category == "error" for f in remaining):
        return EXIT_ERROR
    if diff:
        return EXIT_FINDINGS if result.changed else EXIT_CLEAN
    if any(f.category in ("remove", "review") for f in remaining):
        return EXIT_FINDINGS
    return EXIT_CLEAN


@click.command()
@_common
def check(**kwargs) -> None:
    """Report FSDP2 monkey-patches under PATHS (default: the current folder)."""
    sys.exit(_execute(fix=False, diff=False, unsafe_fixes=False, **kwargs))


@click.command()
@_common
@click.option("--diff", is_flag=True, help="Print the changes as a unified diff and write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that change what a test suite checks.")
def fix(**kwargs) -> None:
    """Remove the overrides native FSDP2 now covers, in place (`--diff` to preview)."""
    sys.exit(_execute(fix=True, **kwargs))
