"""`fsdp-unpatch check` and `fsdp-unpatch fix`.

Exit status: 0 nothing to report (keep findings never fail a run), 1 findings remain (a file that does not
parse included, as in ruff; or, with `fix --diff`, the fix would change something), 2 usage or input error
(a file that cannot be read or written).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable

import click

from fsdp_unpatch.commands.lint_options import common_options, fix_options
from fsdp_unpatch.config.request import Request
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.reporting import MACHINE_FORMATS, NEEDS_REPLACEMENTS, ReportContext
from fsdp_unpatch.reporting.color import color_choice, use_color

if TYPE_CHECKING:
    from fsdp_unpatch.config.discovery import Candidate

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def _execute(request: Request) -> int:
    from fsdp_unpatch.files.signals import termination_as_interrupt

    received: list[str] = []
    try:
        with termination_as_interrupt() as received:
            status, result = _run_and_report(request)
    except BaseException as error:
        if not received and not isinstance(error, KeyboardInterrupt):
            raise
        # A group of files being written holds these signals until it is done; before that its temporaries
        # are removed (transaction.py): no file is half written, no group half fixed.
        done = (
            _("; every file is either wholly fixed or untouched, and so is every group of linked files")
            if request.fix and not request.diff
            else ""
        )
        why = f" ({received[-1]})" if received and received[-1] != "SIGINT" else ""
        click.echo("fsdp-unpatch: " + _("interrupted{why}{done}").format(why=why, done=done), err=True)
        return EXIT_INTERRUPTED
    if result is None:  # a usage error, or --show-settings / --show-files
        return status
    if request.exit_zero:  # like ruff: whatever was found, unreadable and unparsable files included
        return EXIT_CLEAN
    if status == EXIT_ERROR:
        return status
    if request.exit_non_zero_on_fix and result.changed and not request.diff:
        return EXIT_FINDINGS
    if request.fix_only or request.add_noqa:  # leftover findings are not this run's business
        # but a file that does not parse was neither fixed nor marked: said by the status, as before (not 0)
        return EXIT_FINDINGS if _unparsed(result.remaining) else EXIT_CLEAN
    return status


def _unparsed(findings) -> list:
    """The findings of files that do not parse (FSU901): reported, and they fail the run as findings do (exit
    1, as ruff exits for a syntax error), not as an input error."""
    from fsdp_unpatch.rules.registry import with_role

    code = with_role("parse-error").code
    return [f for f in findings if f.code == code]


def _error(message: str) -> None:
    for line in message.splitlines():
        click.echo("fsdp-unpatch: " + _("error: {message}").format(message=line), err=True)


def _run_and_report(request: Request):
    """Run and print the report; returns the exit status and the run's result (None: nothing was run)."""
    # Nothing here loads libcst: a run whose files the prefilter rejects never needs it.
    from fsdp_unpatch.run.session import UsageError, execute, prepare

    started = time.perf_counter()
    paths, fix, diff, output_format = request.paths, request.fix, request.diff, request.output_format
    stdin_filename, quiet, show_fixes = request.stdin_filename, request.quiet, request.show_fixes
    from_stdin = "-" in paths
    if from_stdin and len(paths) > 1:
        _error(_("`-` (standard input) cannot be combined with other paths"))
        return EXIT_ERROR, None
    if stdin_filename is not None and not from_stdin:
        _error(_("--stdin-filename names standard input: give it no path, or the path `-`"))
        return EXIT_ERROR, None
    if request.add_noqa and (fix or from_stdin):
        _error(
            _("--add-noqa marks the findings of files on disk; it cannot be combined with {what}").format(
                what="--fix, --fix-only or --diff" if fix else _("standard input")
            )
        )
        return EXIT_ERROR, None
    from fsdp_unpatch.reporting import extra_outputs

    try:
        extras = extra_outputs.parse(request.extra_output, request.output_file)
    except ValueError as error:
        _error(str(error))
        return EXIT_ERROR, None
    from fsdp_unpatch.commands.migration_report import ReportError, evidence_for, write_report

    try:  # said before anything is fixed
        evidence = evidence_for(request)
    except ReportError as error:
        _error(str(error))
        return EXIT_ERROR, None
    if request.output_file is None and not _open_stream(sys.stdout):  # `>&-`: said before touching a file
        _error(_("standard output is closed; nothing was done (give --output-file, or redirect to /dev/null)"))
        return EXIT_ERROR, None
    formats = {output_format, *(name for name, _ in extras)}
    request = replace(request, replacements=bool(formats & NEEDS_REPLACEMENTS))
    stdin_data = sys.stdin.buffer.read() if from_stdin and not (request.show_settings or request.show_files) else b""
    try:
        plan = prepare(request, stdin_data if from_stdin else None)
    except UsageError as error:
        _error(str(error))
        return EXIT_ERROR, None
    from fsdp_unpatch import i18n

    i18n.use_configured(plan.settings.lang)  # `lang` in the configuration, unless `--lang` was given
    for path in plan.missing:
        _error(_("{path}: no such file or directory").format(path=path))
    repair = plan.repair
    for line in repair.done if repair is not None else ():
        click.echo(f"fsdp-unpatch: {line}", err=True)
    for line in repair.interrupted if repair is not None else ():
        click.echo(f"fsdp-unpatch: {line}", err=True)
    held = _("; no file is written while it is there") if request.fix and not request.diff else ""
    for line in repair.problems if repair is not None else ():
        _error(line + held)
    if plan.cache is not None and plan.cache.problem is not None and not quiet:
        click.echo("fsdp-unpatch: " + _("warning: {message}").format(message=plan.cache.problem), err=True)
    for warning in plan.warnings if not quiet else ():
        click.echo("fsdp-unpatch: " + _("warning: {message}").format(message=warning), err=True)
    with contextlib.ExitStack() as stack:
        try:
            out = (
                stack.enter_context(open(request.output_file, "w", encoding="utf-8"))
                if request.output_file
                else sys.stdout
            )
        except OSError as error:
            _error(f"--output-file {request.output_file}: {error.strerror or error}")  # the system's words
            return EXIT_ERROR, None
        if request.show_settings:
            from fsdp_unpatch.config.show import settings_text

            out.write(settings_text(plan, request))
            return EXIT_CLEAN, None
        if request.show_files:
            from fsdp_unpatch.quoting import quoted_path

            out.write("".join(f"{quoted_path(c.display)}\n" for c in plan.candidates))  # one name a line
            return EXIT_CLEAN, None
        candidates: Iterable[Candidate] = plan.candidates
        from fsdp_unpatch.run.progress import show_progress, tracked

        if show_progress(sys.stderr, os.environ, output_format in MACHINE_FORMATS, quiet, len(plan.candidates)):
            candidates = tracked(plan.candidates)  # an iterator: `fix` analyses `plan.candidates` again, not this
        from fsdp_unpatch.files.signals import at_checkpoints

        with at_checkpoints():  # signals stop the run between files and between groups, never inside libcst
            result = execute(plan, request.jobs, candidates)  # after a written fix: the tree as it is now
        color = use_color(
            color_choice(request.color, request.no_color), out, os.environ, to_file=request.output_file is not None
        )
        context = ReportContext(
            catalog=plan.catalog,
            fix_mode=fix,
            show_source=request.show_source,
            color=color,
            target_torch=str(plan.target_torch),
            target_torch_origin=plan.target_torch_origin,
            target_torch_judged_as=plan.target_torch.judged_as or "",
            elapsed=time.perf_counter() - started,
            quiet=quiet,
            show_fixes=show_fixes,
            dry_run=diff,
            unsafe_fixes=request.unsafe_fixes,
            link_base=link_base(os.environ),
            show_kept=request.show_kept,
        )
        try:
            _report(request, result, context, out, stdin_data)
            out.flush()  # a full disk answers here, not at exit
        except OSError as error:
            _unwritable_report(request, result, error)
            return EXIT_ERROR, result
        try:
            extra_outputs.write(extras, result, context)
        except OSError as error:
            _error(f"--extra-output {error.filename}: {error.strerror or error}")
            return EXIT_ERROR, result
        if request.report is not None:
            try:
                write_report(request, result, context, evidence, plan.settings, plan.candidates)
            except ReportError as error:
                _error(str(error))
                return EXIT_ERROR, result
        if request.add_noqa:
            from fsdp_unpatch.fixes.add_noqa import mark_files

            if not mark_files(result, quiet):
                return EXIT_ERROR, result
    remaining = result.remaining
    # A syntax error is a finding, as in ruff (exit 1); a file that cannot be read or written, an input error (2)
    unparsed = _unparsed(remaining)
    errors = sum(1 for f in remaining if f.category == "error") - len(unparsed)
    if plan.missing or (repair is not None and repair.problems) or errors:
        return EXIT_ERROR, result
    if repair is not None and repair.interrupted:  # a half-written group: `fix` must finish it
        return EXIT_FINDINGS, result
    if unparsed:
        return EXIT_FINDINGS, result
    if diff:
        return (EXIT_FINDINGS if result.changed else EXIT_CLEAN), result
    if any(f.category in ("remove", "review") for f in remaining):
        return EXIT_FINDINGS, result
    return EXIT_CLEAN, result


def _open_stream(stream) -> bool:
    """Whether `stream` is there to be written (a closed standard output is None, or a dead descriptor)."""
    if stream is None:
        return False
    try:
        descriptor = stream.fileno()
    except (ValueError, AttributeError, io.UnsupportedOperation):  # a buffer, not a file (tests): it is there
        return True
    try:
        os.fstat(descriptor)
    except OSError:
        return False
    return True


def _unwritable_report(request: Request, result, error: OSError) -> None:
    """One line on standard error, never a traceback; after a written fix, what is on disk now."""
    from fsdp_unpatch.i18n import ngettext

    where = request.output_file or _("standard output")
    written = ""
    if request.fix and not request.diff and "-" not in request.paths:
        changed = len(result.changed)
        written = ngettext(
            "; the fixes were written ({count} file changed)",
            "; the fixes were written ({count} files changed)",
            changed,
        ).format(count=changed)
    _error(
        _("cannot write the report to {where}: {reason}{written}").format(
            where=where, reason=error.strerror or error, written=written
        )
    )
    try:  # what is still buffered would fail again when Python exits, with a traceback of its own
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _report(request: Request, result, context, out, stdin_data: bytes) -> None:
    from fsdp_unpatch.reporting import formatter

    output_format = request.output_format
    if "-" in request.paths and request.fix and not request.diff:
        # An editor's buffer: the fixed source (or the buffer unchanged) on stdout, the report on stderr.
        fixed = result.files[0].fixed if result.files else None
        sys.stdout.buffer.write(fixed if fixed is not None else stdin_data)
        sys.stdout.flush()
        sys.stderr.write(formatter(output_format)(result, replace(context, color=False)))
    elif request.add_noqa:
        return  # add_noqa.mark_files says what it added
    elif request.fix_only:
        from fsdp_unpatch.reporting.text import fix_summary

        if not request.quiet:
            click.echo(fix_summary(result, context), file=out)
    elif request.diff:
        out.flush()
        binary = getattr(out, "buffer", None)
        for changed in result.changed:
            try:
                mode = os.stat(changed.display).st_mode  # `deleted file mode` for git
            except OSError:
                mode = 0o100644
            patch = changed.diff(mode)  # each file's diff in its own bytes
            if binary is not None:
                binary.write(patch)
            else:
                out.write(patch.decode("utf-8", "surrogateescape"))
        out.flush()
        if output_format == "full":
            from fsdp_unpatch.reporting.text import summary

            if not request.quiet:
                _say_errors(result)  # a file that does not parse has no diff: it is named, not only counted
                click.echo(summary(result, context, listing=False), err=True)
        else:
            sys.stderr.write(formatter(output_format)(result, context))
    elif request.statistics:
        from fsdp_unpatch.reporting.statistics import statistics_report

        out.write(statistics_report(result, context, output_format))
    else:
        out.write(formatter(output_format)(result, context))


def _say_errors(result) -> None:
    """The files the run could not read or parse, one line each on standard error, as `check` lists them."""
    from fsdp_unpatch.quoting import quoted_path
    from fsdp_unpatch.reporting.localize import localized

    for f in result.remaining:
        if f.category == "error":
            where = f"{quoted_path(f.path)}:{f.span.line}:{f.span.column}"
            click.echo(f"{where}: {f.code} [{f.category}] {localized(f.message)}", err=True)


def link_base(environ) -> str:
    """Where findings link to in the markdown report: the commit's files on GitHub when run there."""
    server, repository, sha = (environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"))
    return f"{server}/{repository}/blob/{sha}/" if server and repository and sha else ""


@click.command()
@common_options
@fix_options
@click.option("--fix/--no-fix", "fix", default=False, help="Apply the safe fixes, as `fsdp-unpatch fix`.")
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add `# noqa: CODE` to the line of every remove and review finding (a baseline), and exit 0.",
)
def check(fix: bool, **options) -> None:
    """Report FSDP2 monkey-patches under PATHS (default: the current folder)."""
    fix = fix or options["fix_only"] or options["diff"]
    sys.exit(_execute(Request.from_options(fix=fix, **options)))


@click.command()
@common_options
@fix_options
def fix(**options) -> None:
    """Remove the overrides native FSDP2 now covers, in place (`--diff` to preview)."""
    sys.exit(_execute(Request.from_options(fix=True, **options)))
