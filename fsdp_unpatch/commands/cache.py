"""`fsdp-unpatch clean`: remove the result cache of the project (or the one `--cache-dir` names)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from fsdp_unpatch.i18n import gettext as _


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--cache-dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="The cache folder given to `check --cache-dir` (environment variable FSDP_UNPATCH_CACHE_DIR).",
)
def clean(paths: tuple[str, ...], cache_dir) -> None:
    """Remove `.fsdp_unpatch_cache/` at the project root of PATHS (default: the current folder)."""
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.run.cache import clear
    from fsdp_unpatch.run.session import cache_folder

    moved = cache_folder(cache_dir)
    if moved is not None:
        folder = Path(moved)
        # only a folder the cache made (it writes CACHEDIR.TAG): never a folder named by mistake
        tag = folder / "CACHEDIR.TAG"
        if not tag.is_file() or b"fsdp-unpatch" not in tag.read_bytes():
            click.echo(_("No cache at {folder}").format(folder=folder))
            return
        done, message = clear(folder.parent, folder)
    else:
        done, message = clear(Project.of(paths).folder)
    if done:
        click.echo(message)
    else:
        click.echo("fsdp-unpatch: " + _("error: {message}").format(message=message), err=True)
        sys.exit(2)
