"""`fsdp-unpatch clean`: remove the result cache of the project."""
from __future__ import annotations

import click


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
def clean(paths: tuple[str, ...]) -> None:
    """Remove `.fsdp_unpatch_cache/` at the project root of PATHS (default: the current folder)."""
    import sys

    from fsdp_unpatch.cache import clear, project_root

    done, message = clear(project_root(paths))
    if done:
        click.echo(message)
    else:
        click.echo(f"fsdp-unpatch: error: {message}", err=True)
        sys.exit(2)
