"""`fsdp-unpatch upgrade --to VERSION [PATH ...]`: what moving to another torch does to every override that
stays after the migration (enhance patch, review findings, subclass overrides, kernels, test patches).

`--from` defaults to the project's torch, resolved as `check` does. Exit status: 0 nothing breaks, 1 something
breaks or a copy drops upstream changes, 2 bad input (an unknown release, a missing path, bad catalog data).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click

from fsdp_unpatch.i18n import N_, translated
from fsdp_unpatch.i18n import gettext as _

EXIT_OK, EXIT_BREAKS, EXIT_ERROR = 0, 1, 2
# `catalog list`'s origin of a release shipped with the tool, in the reader's language (a learnt one's: its file)
BUNDLED = N_("bundled")


def _fail(message: str) -> None:
    """Exit 2 with `message` (a `Phrase` is said in the reader's language)."""
    click.echo("fsdp-unpatch: " + _("error: {message}").format(message=translated(message)), err=True)
    sys.exit(EXIT_ERROR)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--to", "to_version", required=True, metavar="VERSION", help="The torch release to move to.")
@click.option(
    "--from",
    "from_version",
    metavar="VERSION",
    help="The torch release the project is on (default: the target torch `check` resolves).",
)
@click.option(
    "--output-format",
    "--format",
    "output_format",
    default="text",
    show_default=True,
    type=click.Choice(["text", "json"]),
)
@click.option("--report", "report", metavar="FILE.md", type=click.Path(dir_okay=False), help="Write a checklist.")
@click.option("--catalog-dir", metavar="DIR", type=click.Path(file_okay=False), help="The user catalog folder.")
@click.option("--config", metavar="FILE", type=click.Path(dir_okay=False), help="The configuration file.")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
def upgrade(paths, to_version, from_version, output_format, report, catalog_dir, config, isolated) -> None:
    """Say what moving to torch VERSION does to every override of PATHS that stays (default: the current folder)."""
    from fsdp_unpatch.upgrade.run import UpgradeError, run_upgrade
    from fsdp_unpatch.upgrade.text import checklist, text

    try:
        result = run_upgrade(paths or (".",), to_version, from_version, catalog_dir, config, isolated)
    except UpgradeError as error:
        _fail(translated(error))
        return
    for warning in result.warnings:
        click.echo("fsdp-unpatch: " + _("warning: {message}").format(message=translated(warning)), err=True)
    if output_format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text(result))
    if report:
        Path(report).write_text(checklist(result), encoding="utf-8")
    sys.exit(EXIT_BREAKS if result.breaks else EXIT_OK)


def _catalog_folder(catalog_dir: Optional[str]) -> Path:
    from fsdp_unpatch.upgrade.store import catalog_folder

    return catalog_folder(catalog_dir)


@click.group("catalog")
def catalog() -> None:
    """The torch releases fsdp-unpatch knows, and releases it learns (`catalog add`)."""


@catalog.command("add")
@click.argument("source", type=click.Path())
@click.option("--catalog-dir", metavar="DIR", type=click.Path(file_okay=False), help="The user catalog folder.")
def catalog_add(source: str, catalog_dir: Optional[str]) -> None:
    """Learn the FSDP2 of a torch wheel, an unpacked torch, or a site-packages."""
    from fsdp_unpatch.upgrade.store import SourceError, add

    try:
        version, path = add(Path(source), _catalog_folder(catalog_dir))
    except (SourceError, SyntaxError, UnicodeDecodeError, OSError) as error:
        _fail(translated(error))
        return
    click.echo(_("Learnt torch {version} into {path}").format(version=version, path=path))


@catalog.command("list")
@click.option("--catalog-dir", metavar="DIR", type=click.Path(file_okay=False), help="The user catalog folder.")
def catalog_list(catalog_dir: Optional[str]) -> None:
    """Every known torch release and where it came from."""
    from fsdp_unpatch.fingerprint.releases import all_releases
    from fsdp_unpatch.upgrade.store import learnt

    extra, errors = learnt(_catalog_folder(catalog_dir))
    for version, release in all_releases(extra).items():
        click.echo(f"{version}\t{_(BUNDLED) if release.origin == 'bundled' else release.origin}")
    for message in errors:
        click.echo("fsdp-unpatch: " + _("error: {message}").format(message=translated(message)), err=True)
    sys.exit(EXIT_ERROR if errors else EXIT_OK)
