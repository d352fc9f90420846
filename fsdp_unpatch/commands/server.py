"""`fsdp-unpatch server`: the language server an editor starts (docs/integrations.md, Editors)."""

from __future__ import annotations

import sys

import click

EXIT_ERROR = 2
NEEDS = ("pygls", "lsprotocol")  # the `lsp` extra


@click.command()
def server() -> None:
    """Run the language server over standard input and output (an editor starts it)."""
    try:
        from fsdp_unpatch.integrations.lsp_server import serve
    except ModuleNotFoundError as error:
        if error.name not in NEEDS:
            raise
        click.echo(
            f"fsdp-unpatch: error: the language server needs {error.name}: install fsdp-unpatch with its `lsp` "
            "extra, or `pip install pygls`",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    serve()
