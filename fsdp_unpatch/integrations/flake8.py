"""flake8 plugin: `flake8 --select FSU` reports fsdp-unpatch's findings with the same codes and positions.

It agrees with `fsdp-unpatch check`: the file's `[tool.fsdp-unpatch]` configuration applies (target torch,
`keep`, select/ignore, per-file ignores), and keep findings (FSU2xx), which never fail a `check`, are
not emitted unless `--fsdp-unpatch-keep` (or `fsdp-unpatch-keep = true` in flake8's configuration)
asks for them. flake8 gives a plugin one file at a time, so the plugin sees what `fsdp-unpatch check
FILE` sees for that file alone: findings that come from another file (CROSS_FILE_CODES, README
"flake8") are only known to a run over the project. flake8 applies its own `--select`/`--ignore`/`# noqa`;
fsdp-unpatch's `# noqa: FSU...` comments are honoured too.
"""

from __future__ import annotations

import io
import tokenize
from typing import Iterator, Sequence

from fsdp_unpatch import __version__

# Codes whose findings can come from another file of the run (a removed installer's calls, references,
# tests and strings naming a function removed elsewhere); flake8 sees them only when both ends are in
# the same file.
CROSS_FILE_CODES = frozenset({"FSU004", "FSU301", "FSU302", "FSU303", "FSU304", "FSU305"})
KEEP_OPTION = "--fsdp-unpatch-keep"


def _encode(lines: Sequence[str]) -> bytes:
    """flake8 hands over decoded lines: encode them back with the file's declared encoding."""
    head = "".join(lines[:2]).encode("ascii", "replace")
    encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    return "".join(lines).encode(encoding)


class Plugin:
    name = "fsdp-unpatch"
    version = __version__
    report_keep = False

    def __init__(self, tree, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, parser) -> None:
        parser.add_option(
            KEEP_OPTION,
            action="store_true",
            default=False,
            parse_from_config=True,
            help="fsdp-unpatch: also report keep findings (FSU2xx: the enhance patch, test patches), which "
            "never fail `fsdp-unpatch check`.",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        cls.report_keep = bool(getattr(options, "fsdp_unpatch_keep", False))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from fsdp_unpatch.config.request import STDIN, Request
        from fsdp_unpatch.run.session import execute, prepare

        # A broken [tool.fsdp-unpatch] raises UsageError naming it; flake8 reports the plugin's failure.
        request = Request((STDIN,), stdin_filename=self.filename, no_cache=True)
        plan = prepare(request, _encode(self.lines))
        for finding in execute(plan, jobs=1).remaining:
            if finding.category == "keep" and not self.report_keep:
                continue
            # flake8 columns are 0-based offsets; it adds 1 when it prints them
            yield finding.span.line, finding.span.column - 1, f"{finding.code} {finding.message}", type(self)
