"""`fsdp-unpatch audit`: reports that help review a migration, beyond findings.

`audit foreach-copy` lists every `torch._foreach_copy_` call site (and `aten._foreach_copy` registration,
and mock of it) with its kind, whether it can reach the backend's same-device fast path, and what to re-test.
Exit status: 0 the report was written, 2 a path is missing or a file could not be read or parsed (the
other files are still reported).
"""

from __future__ import annotations

import os
import sys

import click

from fsdp_unpatch.i18n import gettext as _

EXIT_OK, EXIT_ERROR = 0, 2


@click.group()
def audit() -> None:
    """Audit call sites that the migration's preconditions reach."""


@audit.command("foreach-copy", short_help="Every `torch._foreach_copy_` call site under PATHS.")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--output-format",
    "--format",
    "output_format",
    default="markdown",
    show_default=True,
    type=click.Choice(["markdown", "json"]),
    help="A table for a review, or JSON for programs.",
)
def foreach_copy(paths: tuple[str, ...], output_format: str) -> None:
    """Every `torch._foreach_copy_` call site under PATHS (default: the current folder)."""
    from fsdp_unpatch.audit.call_sites import audit_paths
    from fsdp_unpatch.audit.report import as_json, markdown
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.config.discovery import MissingPath, discover

    try:
        candidates = list(discover(paths or (".",)))
    except MissingPath as error:
        click.echo(
            "fsdp-unpatch: "
            + _("error: {message}").format(message=_("{path}: no such file or directory").format(path=error)),
            err=True,
        )
        sys.exit(EXIT_ERROR)
    from fsdp_unpatch.run.progress import show_progress, tracked

    shown = show_progress(sys.stderr, os.environ, output_format == "json", False, len(candidates))
    sites, errors = audit_paths(tracked(candidates) if shown else candidates, load_catalog())
    sys.stdout.write(markdown(sites) if output_format == "markdown" else as_json(sites))
    if errors:
        from fsdp_unpatch.reporting.localize import localized

        for where, problem in errors:  # the problem as `check` says it (FSU9xx), in the reader's language
            message = f"{where}: {localized(problem)}"
            click.echo("fsdp-unpatch: " + _("error: {message}").format(message=message), err=True)
    sys.exit(EXIT_ERROR if errors else EXIT_OK)
