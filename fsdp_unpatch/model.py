"""The data of a run: findings with their locations and fixes, what a run is given and what it gives back.

Plain data, importable without libcst: the reports, the command line and the process pool's workers use
these, so a run over files that need no parsing finishes without loading libcst.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from fsdp_unpatch import rule_url
from fsdp_unpatch.quoting import git_quoted

if TYPE_CHECKING:
    from fsdp_unpatch.config.options import Options

# What a finding asks of the user (the rule registry declares one per rule: `rules/registry.py`).
Category = Literal["remove", "review", "keep", "error"]
# How far a fix may be trusted: `safe` is applied by `fix`, `unsafe` only with `--unsafe-fixes`.
FixApplicability = Literal["safe", "unsafe"]


@dataclass(frozen=True)
class Span:
    """1-based line and column, end inclusive of the last line, end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Replacement:
    """Replace the text from (line, column) up to (end_line, end_column) by `content`.

    1-based, end exclusive; an empty region (start == end) inserts. Regions cover whole lines, so
    `end_line` may be one past the last line when the region runs to the end of the file.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: FixApplicability
    description: str
    # What applying this fix alone changes (its edits and those of the fixes it carries: `Run.carried`), in
    # the finding's file and, by path, in other files; filled only when a report needs it.
    replacements: tuple[Replacement, ...] = ()
    elsewhere: tuple[tuple[str, tuple[Replacement, ...]], ...] = ()

    def changes(self, path: str) -> list[tuple[str, tuple[Replacement, ...]]]:
        """(path, replacements) of every file the fix changes, the finding's own file (`path`) first."""
        own = [(path, self.replacements)] if self.replacements else []
        return own + list(self.elsewhere)

    def to_dict(self, path: str) -> dict[str, Any]:
        edits = [
            {
                "path": file,
                "line": r.line,
                "column": r.column,
                "end_line": r.end_line,
                "end_column": r.end_column,
                "content": r.content,
            }
            for file, replacements in self.changes(path)
            for r in replacements
        ]
        return {"applicability": self.applicability, "description": self.description, "edits": edits}


@dataclass
class Finding:
    code: str
    category: Category
    path: str
    span: Span
    message: str
    target: Optional[str] = None
    fix: Optional[Fix] = None
    # More than the message can say: a diff of a replacement against upstream (`--show-source`).
    detail: Optional[str] = None
    # Filled by the runner: whether the fix was applied in this run.
    fixed: bool = field(default=False, compare=False)
    # Why `fix` would not (or did not) write this finding's fix in this run (`run/held_back.py`), if so.
    held_back: Optional[str] = field(default=None, compare=False)

    @property
    def fixable(self) -> bool:
        """A safe fix that `fix` would apply in this run: what the summary counts as fixable."""
        return self.fix is not None and self.fix.applicability == "safe" and not self.fixed and self.held_back is None

    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.column, self.code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "category": self.category,
            "target": self.target,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "message": self.message,
            "url": rule_url(self.code),  # the rule's section of the docs
            "fix": None if self.fix is None else {**self.fix.to_dict(self.path), "held_back": self.held_back},
            "detail": self.detail,
        }


def _everything(code: str, path: str) -> bool:
    return True


def _every_rule(code: str) -> bool:
    return True


EXCERPT_ABOVE = 256 * 1024  # a whole-file libcst parse of this size: about 9 s and 150 MiB


@dataclass(frozen=True)
class RunOptions:
    analysis: Options
    fix: bool = False
    write: bool = True  # False for `fix --diff`: compute, show, write nothing
    unsafe_fixes: bool = False
    replacements: bool = False  # attach each fix's replacement regions (SARIF, --show-fixes)
    selected: Callable[[str, str], bool] = _everything  # (code, path) -> reported?
    fixable: Callable[[str], bool] = _every_rule  # code -> may its fixes be applied (and counted)?
    ignore_noqa: bool = False  # `--ignore-noqa`: no noqa comment suppresses anything
    # A run over part of a project (a pre-commit hook passes a few files): the project's root and the
    # paths the run covers. A definition that a project file outside them still names is not deleted.
    project_root: Optional[str] = None
    covered: tuple[str, ...] = ()
    # The ast tier (`analysis/screen.py`): files CPython's parser shows can hold no finding skip libcst.
    # False parses every prefiltered file with libcst (`tests/test_tiers.py` checks both give the same).
    screen: bool = True
    # Files of this many bytes or more are analysed through an excerpt (`analysis/excerpt.py`): the
    # statements that can matter, parsed with libcst, the rest held aside byte for byte.
    excerpt_above: int = EXCERPT_ABOVE
    # A file that gets no fix has its findings built from the `ast` model, without libcst, when the model
    # decides them all (`analysis/ast_findings.py`); False: libcst for every file the ast tier keeps.
    ast_findings: bool = True


@dataclass
class FileResult:
    display: str
    findings: list[Finding] = field(default_factory=list)
    original: Optional[bytes] = None
    fixed: Optional[bytes] = None  # the new content when the fix changes the file
    deleted: bool = False  # the fix deletes the file (`fixed` is then empty)
    encoding: str = "utf-8"
    # The planned write (`transaction.Change`) until its group is committed or held back; then None.
    change: Optional[Any] = field(default=None, repr=False, compare=False)

    def hold_back(self) -> None:
        """The file's fix is not applied after all (another file of its group could not be edited)."""
        self.fixed, self.deleted, self.change = None, False, None
        for finding in self.findings:
            finding.fixed = False

    def diff(self, mode: int = 0o100644) -> bytes:
        """The change as a git-style unified diff that `git apply` (and `patch`) accept, in the file's own bytes.

        Lines are the file's bytes split at "\n" only, so any ASCII-compatible encoding (UTF-8, latin-1,
        cp1252, Shift JIS...) and any line ending comes out exactly as the fix writes it. A file the fix
        deletes is a deletion (`deleted file mode`), not a hunk that leaves an empty file behind.
        """
        if self.fixed is None or self.original is None:
            return b""
        name = self.display.replace("\\", "/").encode("utf-8", "surrogateescape")
        # A name with a newline would start a line of its own: quoted as git does, `"a/x\nb.py"`.
        old_name, new_name = git_quoted(b"a/" + name), git_quoted(b"b/" + name)
        header = b"diff --git " + old_name + b" " + new_name + b"\n"
        if self.deleted:
            header += f"deleted file mode {mode:o}\n".encode()
            if not self.original:
                return header
        import difflib  # a diff is asked for by `--diff` and the reports that show one, never by a plain `check`

        lines = difflib.diff_bytes(
            difflib.unified_diff,
            _lines(self.original),
            _lines(b"" if self.deleted else self.fixed),
            old_name,
            b"/dev/null" if self.deleted else new_name,
            lineterm=b"\n",
        )
        body = b"".join(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n" for line in lines)
        return header + body if body else b""


def _lines(data: bytes) -> list[bytes]:
    """`data` cut after each "\n" (and nowhere else: git and patch know no other line break)."""
    lines = data.split(b"\n")
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


@dataclass
class RunResult:
    files: list[FileResult]
    unsafe_fixes_left: int = 0
    # Indices (into `files`) of the files whose fixes are written all or nothing (`transaction.py`).
    transactions: list[list[int]] = field(default_factory=list)
    # After a written fix (the files above are then the tree as it is now): the files as the fix changed them.
    written: list[FileResult] = field(default_factory=list)
    # An editor's buffer run in its project: the other files its fix changes with it (`session._buffer_only`).
    companions: list[FileResult] = field(default_factory=list)

    def after_fix(self, fresh: RunResult) -> RunResult:
        """What to report after this fix was written: `fresh` (the changed tree analysed again, as `check`
        would see it now: lines as they are, nothing the fix removed) plus what only the fix knows: the
        findings it fixed (counted, not listed), the errors of writing, the files it deleted."""
        by_display = {r.display: r for r in self.files}
        files = []
        for now in fresh.files:
            before = by_display.pop(now.display, None)
            if before is not None:
                now.fixed, now.deleted = before.fixed, before.deleted
                known = {(f.code, f.message) for f in now.findings}
                now.findings += [
                    f
                    for f in before.findings
                    if f.fixed or (f.category == "error" and (f.code, f.message) not in known)
                ]
            files.append(now)
        files += [r for r in by_display.values() if r.deleted]
        return RunResult(files=files, unsafe_fixes_left=self.unsafe_fixes_left, transactions=self.transactions)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)

    @property
    def remaining(self) -> list[Finding]:
        return [f for f in self.findings if not f.fixed]

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.files if r.fixed is not None]


@dataclass
class Outcome:
    """What the per-file phase (`run/batch.py`) learns about one file: its result alone, and what links it
    to other files. Plain data: it crosses process boundaries and is what a cache entry holds."""

    result: FileResult
    exports: frozenset[str] = frozenset()  # names other files may use of what this file's fixes delete
    together: bool = False  # names a part of a known patch module: decided with the whole run
    patched: frozenset[str] = frozenset()  # FSDP2 targets this file patches
    missing: frozenset[str] = frozenset()  # by-name twins it does not patch (completeness findings)
