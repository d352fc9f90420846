"""The command-line options of `fsdp-unpatch check` and `fsdp-unpatch fix` (`commands/lint.py` runs them)."""

from __future__ import annotations

import click

from fsdp_unpatch.i18n import LANGUAGES
from fsdp_unpatch.reporting import FORMATS
from fsdp_unpatch.reporting.color import CHOICES as COLOR_CHOICES


def common_options(function):
    """The flags of `check` and `fix`: paths, selection, configuration, output."""
    options = [
        click.option(
            "--lang",
            type=click.Choice(LANGUAGES),
            expose_value=False,  # read before click parses anything (cli.py)
            help="Language of messages and help (default: lang in the configuration, else the locale).",
        ),
        click.argument("paths", nargs=-1, type=click.Path()),
        click.option(
            "--output-format",
            default="full",
            show_default=True,
            type=click.Choice(list(FORMATS)),
            envvar="FSDP_UNPATCH_OUTPUT_FORMAT",
            help="How findings are reported (also the environment variable FSDP_UNPATCH_OUTPUT_FORMAT).",
        ),
        click.option(
            "--target-torch",
            metavar="X.Y",
            help="torch release to migrate to (default: the torch the project declares, else the installed "
            "torch, else the newest known).",
        ),
        click.option("--select", multiple=True, metavar="CODES", help="Rule codes or prefixes to report."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rule codes or prefixes not to report."),
        click.option(
            "--extend-ignore", multiple=True, metavar="CODES", help="Rule codes or prefixes not to report, in addition."
        ),
        click.option("--show-source/--no-show-source", default=True, help="Show the source line of each finding."),
        click.option(
            "-o",
            "--output-file",
            metavar="FILE",
            type=click.Path(dir_okay=False),
            help="Write the report to FILE instead of standard output.",
        ),
        click.option(
            "--extra-output",
            multiple=True,
            metavar="FORMAT:FILE",
            help="Also write the report in FORMAT to FILE, from the same run (repeatable).",
        ),
        click.option(
            "--color",
            type=click.Choice(COLOR_CHOICES),
            help="Colour the text output: auto (default: a terminal, or FORCE_COLOR set; never with "
            "NO_COLOR set), always, never.",
        ),
        click.option("--no-color", is_flag=True, help="Never colour the output (same as --color never)."),
        click.option(
            "--exit-zero",
            is_flag=True,
            help="Exit 0 whatever was found, unreadable and unparsable files included (still reported).",
        ),
        click.option(
            "-q", "--quiet", is_flag=True, help="Print the findings and nothing else: no summary, no progress."
        ),
        click.option(
            "--show-fixes/--no-show-fixes",
            default=False,
            help="check: show what each fix would change; fix: list the fixes applied.",
        ),
        click.option(
            "-v",
            "--show-kept",
            "--verbose",
            "show_kept",
            is_flag=True,
            help="Also list the findings kept on purpose (keep: the enhance patch) in the full, concise, grouped "
            "and github formats; they are always counted, and the machine formats always list them.",
        ),
        click.option(
            "--force-exclude",
            is_flag=True,
            help="Skip files named on the command line that a folder walk would skip (pre-commit, editors).",
        ),
        click.option(
            "--stdin-filename",
            metavar="PATH",
            help="Read the source from standard input (path `-`) as if it were PATH (its config applies).",
        ),
        # configuration (fsdp_unpatch/config/files.py): flags win over [tool.fsdp-unpatch]
        click.option(
            "--config",
            "config",
            multiple=True,
            metavar="FILE|KEY=VALUE",
            help="Read the settings from FILE instead of the nearest configuration file; or override one "
            "setting, as TOML (`--config 'select = [\"FSU0\"]'`). Repeatable.",
        ),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--extend-select", multiple=True, metavar="CODES", help="Rule codes or prefixes to add."),
        click.option(
            "--exclude",
            multiple=True,
            metavar="PATTERN",
            help="Patterns to skip (replaces the configured and default ones).",
        ),
        click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Patterns to skip, in addition."),
        click.option(
            "--respect-gitignore/--no-respect-gitignore",
            default=None,
            help="Skip files .gitignore names (default: yes).",
        ),
        click.option(
            "--statistics", is_flag=True, help="Count findings per rule and per target instead of listing them."
        ),
        # speed (README, Performance)
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            metavar="N",
            help="Worker processes for parsing (default: the number of CPUs; used only when it pays).",
        ),
        click.option(
            "--no-cache", is_flag=True, help="Neither read nor write the result cache (.fsdp_unpatch_cache/)."
        ),
        click.option(
            "--cache-dir",
            metavar="DIR",
            type=click.Path(file_okay=False),
            help="Where the result cache lives (default: .fsdp_unpatch_cache/ at the project root; "
            "environment variable FSDP_UNPATCH_CACHE_DIR).",
        ),
        click.option(
            "--per-file-ignores",
            multiple=True,
            metavar="GLOB:CODES",
            help="Codes not reported in files the glob matches (replaces the configured table).",
        ),
        click.option(
            "--extend-per-file-ignores",
            multiple=True,
            metavar="GLOB:CODES",
            help="Like --per-file-ignores, in addition to the configured table.",
        ),
        click.option("--show-settings", is_flag=True, help="Print the settings the run would use, and exit."),
        click.option("--show-files", is_flag=True, help="Print the files the run would check, and exit."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def fix_options(function):
    """The fix flags, on `fix` and (as in ruff) on `check`."""
    options = [
        click.option(
            "--diff", is_flag=True, help="Print the changes the fix would make as a unified diff and write nothing."
        ),
        click.option(
            "--unsafe-fixes/--no-unsafe-fixes",
            default=False,
            help="Also apply fixes that change what a test suite checks (the last of the two wins).",
        ),
        click.option(
            "--fix-only",
            is_flag=True,
            help="Apply the fixes and report nothing else; leftover findings do not fail the run.",
        ),
        click.option(
            "--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when the fix changed a file, even if nothing remains."
        ),
        click.option(
            "--fixable",
            multiple=True,
            metavar="CODES",
            help="Only these rules' fixes are applied and counted (replaces the configured list; default: all).",
        ),
        click.option(
            "--extend-fixable", multiple=True, metavar="CODES", help="Rules whose fixes are applied, in addition."
        ),
        click.option(
            "--unfixable", multiple=True, metavar="CODES", help="Rules whose fixes are never applied or counted."
        ),
        click.option("--ignore-noqa", is_flag=True, help="Ignore `# noqa` comments: report what they suppress."),
        click.option(
            "--report",
            metavar="FILE.md",
            type=click.Path(dir_okay=False),
            help="Also write the merge request's description (Markdown): what was removed and why, what was "
            "kept, what is left for review, the files changed, the precondition (also with --diff).",
        ),
        click.option(
            "--doctor-report",
            metavar="FILE.json",
            type=click.Path(dir_okay=False),
            help="With --report: the precondition as `fsdp-unpatch doctor --output-format json` found it.",
        ),
        click.option(
            "--verify-report",
            metavar="FILE.json",
            type=click.Path(dir_okay=False),
            help="With --report: the result of `fsdp-unpatch verify --output-format json`.",
        ),
        click.option(
            "--template",
            "report_template",
            type=click.Choice(["ascend", "plain"]),
            help="With --report: the Ascend merge-request sections (【合入来源】 ... 【CheckList】) or plain "
            "sections (default: report-template in the configuration, else ascend in Chinese, plain otherwise).",
        ),
        click.option(
            "--design-doc",
            metavar="URL",
            help="With --report: link the design document (default: design-doc in the configuration; none).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function
