"""`fsdp-unpatch clean`: remove the result cache of the project."""
from __future__ import annotations

import click


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
def clean(paths: tuple[str, ...]) -> None:
    """Remove `.fsdp_unpatch_cache/` at the project root of PATHS (default: the current folder)."""
    from fsdp_unpatch.cache import CACHE_DIR, clear, project_root

    root = project_root(paths)
    if clear(root):
        click.echo(f"Removed {root / CACHE_DIR}")
    else:
        click.echo(f"No cache at {root / CACHE_DIR}")
