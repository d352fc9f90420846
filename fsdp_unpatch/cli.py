"""Command-line entry point.

Each sub-command lives in its own module and is imported only when it runs, so that
`fsdp-unpatch --help` and runs over trees with nothing to parse stay cheap.
"""

from __future__ import annotations

import importlib

import click

from fsdp_unpatch import __version__, i18n
from fsdp_unpatch.commands.translated_help import TranslatedContext, translate_help_of
from fsdp_unpatch.i18n import N_

# command name -> ("module:attribute" of a click.Command, one-line help shown by --help)
COMMANDS = {
    "check": ("fsdp_unpatch.commands.lint:check", N_("Report FSDP2 monkey-patches.")),
    "fix": ("fsdp_unpatch.commands.lint:fix", N_("Remove the overrides native FSDP2 now covers.")),
    "rules": ("fsdp_unpatch.commands.docs:rules", N_("List the rules with their codes.")),
    "explain": ("fsdp_unpatch.commands.docs:explain", N_("Explain a rule.")),
    "rule": ("fsdp_unpatch.commands.docs:explain", N_("Explain a rule (alias of `explain`, as in ruff).")),
    "verify": ("fsdp_unpatch.commands.verify:verify", N_("Compare training with the patch and after migration.")),
    "doctor": ("fsdp_unpatch.commands.doctor:doctor", N_("Check what the migration depends on, on this machine.")),
    "audit": (
        "fsdp_unpatch.commands.audit:audit",
        N_("Audit call sites the migration reaches (`audit foreach-copy`)."),
    ),
    "upgrade": (
        "fsdp_unpatch.commands.upgrade:upgrade",
        N_("Say what a torch upgrade does to every override that stays."),
    ),
    "catalog": (
        "fsdp_unpatch.commands.upgrade:catalog",
        N_("List the known torch releases, learn one (`catalog add`)."),
    ),
    "clean": ("fsdp_unpatch.commands.cache:clean", N_("Remove the cache.")),
    "server": ("fsdp_unpatch.commands.server:server", N_("Run the language server (LSP over stdio) for editors.")),
}


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is used.

    It also picks the language (`--lang`, anywhere before `--`, else the locale) before anything is parsed,
    so that help and errors of every command speak it (`i18n.py`).
    """

    context_class = TranslatedContext

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        language, args = i18n.split_lang_option(args)
        try:
            i18n.choose(language)
        except i18n.LanguageError as error:
            ctx.fail(str(error))
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module_name, attribute = spec[0].split(":")
        return translate_help_of(getattr(importlib.import_module(module_name), attribute))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # From the table above, so that --help imports no command module.
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in self.list_commands(ctx)])  # translated there


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fsdp-unpatch")
@click.option(
    "--lang",
    type=click.Choice(i18n.LANGUAGES),
    expose_value=False,
    help=N_(
        "Language of messages and help, anywhere on the command line (default: lang in the "
        "configuration, else the locale: LC_ALL, LC_MESSAGES, LANG)."
    ),
)
def main() -> None:
    """Find and retire monkey-patches of PyTorch FSDP2 internals."""
