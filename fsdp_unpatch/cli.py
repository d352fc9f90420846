"""Command-line entry point.

Each sub-command lives in its own module and is imported only when it runs, so that
`fsdp-unpatch --help` and runs over trees with nothing to parse stay cheap.
"""

from __future__ import annotations

import importlib

import click

from fsdp_unpatch import __version__, i18n
from fsdp_unpatch.commands import click_messages
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
    "version": ("fsdp_unpatch.commands.version:version", N_("Print the version (`--output-format json`: and more).")),
    "server": ("fsdp_unpatch.commands.server:server", N_("Run the language server (LSP over stdio) for editors.")),
}


# Options ruff takes before its sub-command too (`ruff -q check`, `ruff --config X check`): the value they take
# (or None for a flag). They are handed to the sub-command, which is where they mean something.
GLOBAL_OPTIONS = {"-q": None, "--quiet": None, "--isolated": None, "--config": "VALUE", "--no-cache": None}
COMMANDS_WITH_GLOBAL_OPTIONS = frozenset({"check", "fix"})


def after_the_command(args: list[str]) -> list[str]:
    """`-q check x.py` -> `check -q x.py`: the global options given before the sub-command, moved after it."""
    moved: list[str] = []
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        name, equals, _ = args[index].partition("=")
        if name not in GLOBAL_OPTIONS:
            return args  # the group's own (`--version`, `--help`) or a mistake: click says which
        takes = GLOBAL_OPTIONS[name] is not None and not equals
        if takes and index + 1 >= len(args):
            raise click.UsageError(i18n.gettext("Option '{name}' requires an argument.").format(name=name))
        moved += args[index : index + 1 + takes]
        index += 1 + takes
    if not moved or index >= len(args):
        return args
    command = args[index]
    if command in COMMANDS and command not in COMMANDS_WITH_GLOBAL_OPTIONS:
        raise click.UsageError(
            i18n.gettext("{option} before a command goes with `check` and `fix`, not `{command}`").format(
                option=moved[0], command=command
            )
        )
    return [command, *moved, *args[index + 1 :]]


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
        click_messages.install()
        try:
            args = after_the_command(args)
        except click.UsageError as error:
            error.ctx = ctx
            raise
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
