"""Command-line interface: `fsdp-unpatch check|fix|rules|explain`.

Heavy modules (libcst, rich) are imported inside the commands so that start-up stays cheap.
"""
from __future__ import annotations

import click

from fsdp_unpatch import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fsdp-unpatch")
def main() -> None:
    """Find and retire monkey-patches of PyTorch FSDP2 internals."""
