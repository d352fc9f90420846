"""`fsdp-unpatch version`: the version, as `ruff version` prints it; with `--output-format json`, what a bug
report needs too (Python, the platform, the newest torch the catalog knows)."""

from __future__ import annotations

import json
import platform
import sys

import click

from fsdp_unpatch import __version__


@click.command()
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How the version is printed.",
)
def version(output_format: str) -> None:
    """Print the version."""
    if output_format == "text":
        click.echo(f"fsdp-unpatch {__version__}")
        return
    from fsdp_unpatch.catalog import load_catalog

    catalog = load_catalog()
    facts = {
        "version": __version__,
        "python": platform.python_version(),
        "platform": sys.platform,
        "torch_known": {"oldest": str(catalog.oldest_torch), "newest": str(catalog.newest_torch)},
    }
    click.echo(json.dumps(facts, indent=2))
