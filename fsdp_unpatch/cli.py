"""Command-line entry point.

Each sub-command lives in its own module and is imported only when it runs, so that
`fsdp-unpatch --help` and runs over trees with nothing to parse stay cheap.
"""
from __future__ import annotations

import importlib

import click

from fsdp_unpatch import __version__

# command name -> "module:attribute" of a click.Command
COMMANDS = {
    "check": "fsdp_unpatch.commands.lint:check",
    "fix": "fsdp_unpatch.commands.lint:fix",
    "rules": "fsdp_unpatch.commands.docs:rules",
    "explain": "fsdp_unpatch.commands.docs:explain",
    "verify": "fsdp_unpatch.commands.verify:verify",
    "doctor": "fsdp_unpatch.commands.doctor:doctor",
}


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module_name, attribute = spec.split(":")
        return getattr(importlib.import_module(module_name), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fsdp-unpatch")
def main() -> None:
    """Find and retire monkey-patches of PyTorch FSDP2 internals."""
