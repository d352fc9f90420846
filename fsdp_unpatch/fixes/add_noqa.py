"""`check --add-noqa`: baseline a legacy tree by marking each current finding's line `# noqa: CODE`.

Only `remove` and `review` findings are marked (keep findings never fail a run; errors are no code
to suppress). The edit appends to the end of the line and touches nothing else: an existing
`# noqa: X` comment gets `, CODE` appended; another comment gets `  # noqa: CODE` after it; a line
without comment gets it after the code. A line whose end lies inside a string (a finding inside a
multi-line string) or that continues with a backslash cannot carry a comment: it is left alone and
counted. Running it again adds nothing: the marked findings are suppressed.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Iterable, Mapping

from fsdp_unpatch.analysis.suppression import NOQA
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.i18n import ngettext

MARKED_CATEGORIES = ("remove", "review")
_LINE_END = re.compile(r"(\r\n|\r|\n)?\Z")


@dataclass(frozen=True)
class Marked:
    data: bytes  # the new content (the old one when nothing was added)
    added: int  # codes added
    unmarkable: tuple[int, ...]  # lines that cannot carry a comment


def codes_by_line(findings: Iterable) -> dict[int, set[str]]:
    lines: dict[int, set[str]] = {}
    for finding in findings:
        if finding.category in MARKED_CATEGORIES and not finding.fixed:
            lines.setdefault(finding.span.line, set()).add(finding.code)
    return lines


def _comment_lines(text: str) -> tuple[set[int], dict[int, tokenize.TokenInfo]]:
    """Lines whose end is a token boundary (a comment may go there), and the comment on each line."""
    ends: set[int] = set()
    comments: dict[int, tokenize.TokenInfo] = {}
    for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
        if token.type in (tokenize.NEWLINE, tokenize.NL):
            ends.add(token.start[0])
        elif token.type == tokenize.COMMENT:
            comments[token.start[0]] = token
    return ends, comments


def mark(data: bytes, encoding: str, wanted: Mapping[int, set[str]]) -> Marked:
    text = data.decode(encoding)
    ends, comments = _comment_lines(text)
    lines = io.StringIO(text, newline="").readlines()  # \n, \r\n, \r only, as the tokenizer counts
    added = 0
    unmarkable = []
    for number in sorted(wanted):
        if not 1 <= number <= len(lines) or number not in ends:
            unmarkable.append(number)
            continue
        line = lines[number - 1]
        ending = line[len(line.rstrip("\r\n")) :]  # \n, \r\n or \r (one ending: `lines` splits on each)
        body = line[: len(line) - len(ending)]
        comment = comments.get(number)
        match = NOQA.search(comment.string) if comment is not None else None
        if match is not None and not match.group("codes"):
            continue  # a bare noqa comment already silences the whole line
        present = set() if match is None else {c.upper() for c in re.split(r"[\s,]+", match.group("codes")) if c}
        new = sorted(wanted[number] - present)
        if not new:
            continue
        if match is not None and comment is not None:
            start = comment.start[1]  # the comment's column, in characters of the line
            end = start + match.end("codes")
            body = body[:end] + ", " + ", ".join(new) + body[end:]
        else:
            body = body.rstrip(" \t") + "  # noqa: " + ", ".join(new)
        lines[number - 1] = body + ending
        added += len(new)
    return Marked("".join(lines).encode(encoding), added, tuple(unmarkable))


def mark_files(result, quiet: bool = False) -> bool:
    """Mark the findings of `result` in their files (written safely, like a fix); False if a file failed."""
    from pathlib import Path

    import click

    from fsdp_unpatch.files.reading import SourceError, read_source
    from fsdp_unpatch.fixes.transaction import write_atomic

    added = files = 0
    ok = True
    unmarkable = []
    for file in result.files:
        wanted = codes_by_line(file.findings)
        if not wanted or file.original is None:
            continue
        try:
            source = read_source(Path(file.display), file.display)
            if source.data != file.original:
                raise SourceError("write", "file changed on disk while it was being checked; not written")
            marked = mark(source.data, file.encoding, wanted)
            if marked.data != source.data:
                write_atomic(source, marked.data)
                files += 1
        except SourceError as error:
            click.echo("fsdp-unpatch: " + _("error: {message}").format(message=f"{file.display}: {error}"), err=True)
            ok = False
            continue
        added += marked.added
        unmarkable += [f"{file.display}:{line}" for line in marked.unmarkable]
    if not quiet:
        in_files = ngettext("{count} file", "{count} files", files).format(count=files)
        said = ngettext("Added {count} noqa directive to {files}.", "Added {count} noqa directives to {files}.", added)
        click.echo(said.format(count=added, files=in_files), err=True)
    for where in unmarkable:
        warning = _(
            "{where}: the line ends inside a string or continues with a backslash; "
            "no `# noqa` added (suppress it on the statement's first line or in per-file-ignores)"
        ).format(where=where)
        click.echo("fsdp-unpatch: " + _("warning: {message}").format(message=warning), err=True)
    return ok
