"""`fsdp-unpatch clean`: remove the result cache of the project (or the one `--cache-dir` names)."""
from __future__ import annotations

import shutil
from pathlib import Path

import click


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--cache-dir", metavar="DIR", type=click.Path(file_okay=False),
              help="The cache folder given to `check --cache-dir` (environment variable FSDP_UNPATCH_CACHE_DIR).")
def clean(paths: tuple[str, ...], cache_dir) -> None:
    """Remove `.fsdp_unpatch_cache/` at the project root of PATHS (default: the current folder)."""
    from fsdp_unpatch.cache import CACHE_DIR, clear, project_root
    from fsdp_unpatch.session import cache_folder

    moved = cache_folder(cache_dir)
    if moved is not None:
        folder = Path(moved)
        # only a folder the cache made (it writes CACHEDIR.TAG): never a folder named by mistake
        if not (folder / "CACHEDIR.TAG").is_file() or b"fsdp-unpatch" not in (folder / "CACHEDIR.TAG").read_bytes():
            click.echo(f"No cache at {folder}")
            return
        shutil.rmtree(folder)
        click.echo(f"Removed {folder}")
        return
    root = project_root(paths)
    if clear(root):
        click.echo(f"Removed {root / CACHE_DIR}")
    else:
        click.echo(f"No cache at {root / CACHE_DIR}")
