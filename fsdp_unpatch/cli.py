"""Command-line entry point.

Each sub-command lives in its own module and is imported only when it runs, so that
`fsdp-unpatch --help` and runs over trees with nothing to parse stay cheap.
"""

from __future__ import annotations

import importlib

import click

from fsdp_unpatch import __version__

# command name -> ("module:attribute" of a click.Command, one-line help shown by --help)
COMMANDS = {
    "check": ("fsdp_unpatch.commands.lint:check", "Report FSDP2 monkey-patches."),
    "fix": ("fsdp_unpatch.commands.lint:fix", "Remove the overrides native FSDP2 now covers."),
    "rules": ("fsdp_unpatch.commands.docs:rules", "List the rules with their codes."),
    "explain": ("fsdp_unpatch.commands.docs:explain", "Explain a rule."),
    "rule": ("fsdp_unpatch.commands.docs:explain", "Explain a rule (alias of `explain`, as in ruff)."),
    "verify": ("fsdp_unpatch.commands.verify:verify", "Compare training with the patch and after migration."),
    "doctor": ("fsdp_unpatch.commands.doctor:doctor", "Check what the migration depends on, on this machine."),
    "audit": ("fsdp_unpatch.commands.audit:audit", "Audit call sites the migration reaches (`audit foreach-copy`)."),
    "clean": ("fsdp_unpatch.commands.cache:clean", "Remove the cache."),
    "server": ("fsdp_unpatch.commands.server:server", "Run the language server (LSP over stdio) for editors."),
}


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module_name, attribute = spec[0].split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # From the table above, so that --help imports no command module.
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in self.list_commands(ctx)])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fsdp-unpatch")
def main() -> None:
    """Find and retire monkey-patches of PyTorch FSDP2 internals."""
