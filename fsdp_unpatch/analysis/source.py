"""Parsing source files, and the module names and line endings that fixes need.

Parsing goes through CPython's own parser first (to an AST only: nothing is ever executed), because libcst's
native parser can overflow its stack or take minutes on pathologically nested input that CPython rejects in
milliseconds. Reading and writing files is `fsdp_unpatch/files/`.
"""

from __future__ import annotations

import ast
import threading
import warnings
from typing import TYPE_CHECKING, Callable, Optional, TypeVar

from fsdp_unpatch.files.reading import SourceError, SourceFile, declared_encoding, decode_error, line_column, megabytes

if TYPE_CHECKING:  # loaded by parse_source: reading files (and the prefilter) must not cost libcst's import
    import libcst as cst

# A file larger than this is not parsed: a libcst tree takes about 600 times its source in memory
# (a 1.4 MB module needs ~840 MiB and 15 s), so 4 MiB already costs ~2.5 GiB.
MAX_PARSE_BYTES = 4 * 1024 * 1024
# libcst's native parser recurses on the thread's stack; deep (but valid) nesting overflows the 8 MiB
# main-thread stack and kills the process. Parsing runs in a thread with this much stack instead
# (address space reserved, only the pages touched are used).
PARSER_STACK_BYTES = 512 * 1024 * 1024

# CPython's parser refuses these before any deep recursion; libcst would crash or run for minutes on them.
_TOO_DEEP = (
    "too many nested parentheses",
    "too many levels of indentation",
    "too complex",
    "nested too deeply",
    "too many statically nested blocks",
)


# parsing ------------------------------------------------------------------------------------------
def _python_parse(data: bytes) -> tuple[Optional[ast.Module], Optional[SourceError], bool]:
    """CPython's tree of the bytes (an AST only, never executed), or what its parser says about them and whether
    it is about nesting.

    Nesting that CPython refuses is reported as such, before libcst sees the file. Other syntax errors count for
    libcst only if it fails too: libcst may know newer syntax than the running Python.
    """
    try:
        with warnings.catch_warnings():  # CPython's remarks on the scanned code (`1()`...) are not ours to print
            warnings.simplefilter("ignore")
            tree = compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (RecursionError, MemoryError):
        return (
            None,
            SourceError("parse", "too deeply nested to parse safely (CPython's parser gives up on it too)"),
            True,
        )
    except SyntaxError as error:
        line, column = error.lineno or 1, error.offset or 1
        message = error.msg or str(error)
        if any(marker in message for marker in _TOO_DEEP):
            return None, SourceError("parse", f"too deeply nested to parse safely: {message}", line, column), True
        return None, SourceError("parse", f"syntax error: {message}", line, column), False
    except ValueError as error:  # what the compiler refuses outright (NUL bytes are checked before)
        return None, SourceError("parse", f"syntax error: {error}"), False
    assert isinstance(tree, ast.Module)  # `exec` mode
    return tree, None, False


T = TypeVar("T")


def on_big_stack(function: Callable[[], T]) -> T:
    """`function()` in a thread with PARSER_STACK_BYTES of stack; its result, or its exception re-raised."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # handed back to the calling thread
            outcome["error"] = error

    try:
        previous = threading.stack_size(PARSER_STACK_BYTES)
    except (ValueError, RuntimeError):  # the platform cannot set a thread's stack size
        return function()
    try:
        worker = threading.Thread(target=target, name="fsdp-unpatch-parser", daemon=True)
        worker.start()
    except (RuntimeError, MemoryError):  # no room for such a stack (ulimit -v): the ordinary one, then
        return function()
    finally:
        threading.stack_size(previous)
    try:
        worker.join()
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM): let the parse finish first. A thread still inside libcst's native
        # code when the interpreter shuts down aborts the process (SIGABRT) instead of exiting 130.
        while worker.is_alive():
            try:
                worker.join()
            except BaseException:
                continue
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _refuse(data: bytes) -> None:
    """Raise SourceError for what is parsed by neither parser: a NUL byte, bytes the file's encoding cannot
    decode, a file larger than MAX_PARSE_BYTES."""
    nul = data.find(b"\0")
    if nul >= 0:
        line, column = line_column(data, nul)
        raise SourceError(
            "read",
            f"file contains a NUL byte at line {line}, column {column}: a binary file, not Python source",
            line,
            column,
        )
    if len(data) > MAX_PARSE_BYTES:
        raise SourceError(
            "too-large",
            f"file too large to parse safely: {megabytes(len(data))} (the limit is "
            f"{megabytes(MAX_PARSE_BYTES)}; libcst needs about 600 times a file's size "
            "in memory)",
        )
    undecodable = decode_error(data)
    if undecodable is not None:
        raise undecodable


def parse_python(source: SourceFile) -> tuple[ast.Module, str]:
    """CPython's tree of a file and its text (decoded as its encoding declares), for what only reads a file:
    the same refusals as `parse_source`, and a syntax error is CPython's. ast's columns count the UTF-8 bytes of
    the text's lines."""
    data = source.data
    _refuse(data)
    tree, python_error, _ = _python_parse(data)
    if tree is None:
        raise python_error  # type: ignore[misc]
    return tree, data.decode(declared_encoding(data))


def parse_source(source: SourceFile) -> cst.Module:
    """Parse with libcst from bytes, so that the declared encoding is detected and kept.

    Raises SourceError for: a NUL byte, bytes the file's encoding cannot decode, a file larger than
    MAX_PARSE_BYTES, nesting too deep to parse safely, a syntax error (placed by CPython's parser).
    """
    import libcst as cst

    data = source.data
    _refuse(data)
    _, python_error, nesting = _python_parse(data)
    if nesting:
        raise python_error  # type: ignore[misc]
    try:
        return on_big_stack(lambda: cst.parse_module(data))
    except cst.ParserSyntaxError as error:
        if python_error is not None:
            raise python_error from error
        blanked = _blank_long_concatenations(data)
        if blanked is not None:
            try:
                return on_big_stack(lambda: cst.parse_module(blanked))
            except (cst.ParserSyntaxError, RecursionError):
                pass
        message = error.message.replace("parser error: ", "").replace("tokenizer error: ", "")
        raise SourceError("parse", f"syntax error: {message}", error.raw_line, error.raw_column + 1) from error
    except RecursionError as error:
        raise SourceError("parse", "too deeply nested to parse safely (libcst's parser gives up on it)") from error
    except (UnicodeDecodeError, LookupError, SyntaxError) as error:
        raise SourceError("read", f"cannot decode file: {error}") from error


# libcst's native parser refuses a run of more implicitly joined string literals than about 3,500
# ("a" "b" "c" ...: valid Python, seen in generated tables). Below this many, it is left alone.
LONG_CONCATENATION = 1000


def _blank_long_concatenations(data: bytes) -> Optional[bytes]:
    """`data` with every string literal but the first of each long implicit concatenation turned into spaces
    (newlines kept), so that libcst can parse it with every position unchanged; None if there is none.

    The tree then differs from the file in those literals: it is analysed, never written (`round_trips` is
    False, so the runner refuses to rewrite the file).
    """
    import io
    import tokenize

    try:
        tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return None
    skipped = {tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE}
    runs: list[list[tokenize.TokenInfo]] = []
    current: list[tokenize.TokenInfo] = []
    for token in tokens:
        if token.type == tokenize.STRING:
            current.append(token)
        elif token.type not in skipped or token.type == tokenize.NEWLINE:
            if len(current) > LONG_CONCATENATION:
                runs.append(current)
            current = []
    if not runs:
        return None
    lines = data.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    encoding = tokens[0].string if tokens and tokens[0].type == tokenize.ENCODING else "utf-8"
    out = bytearray(data)
    for run in runs:
        for token in run[1:]:
            (row, column), (end_row, end_column) = token.start, token.end
            # token columns count characters of the decoded line; turn them into byte offsets
            start = offsets[row - 1] + len(lines[row - 1].decode(encoding)[:column].encode(encoding))
            end = offsets[end_row - 1] + len(lines[end_row - 1].decode(encoding)[:end_column].encode(encoding))
            out[start:end] = bytes(b if b in b"\r\n" else 0x20 for b in out[start:end])
    return bytes(out)


# code generation ----------------------------------------------------------------------------------
def dominant_newline(data: bytes) -> str:
    """The line ending most of the file's lines use ("\\r\\n", "\\n" or "\\r"); "\\n" for a file without one."""
    crlf = data.count(b"\r\n")
    counts = {"\r\n": crlf, "\n": data.count(b"\n") - crlf, "\r": data.count(b"\r") - crlf}
    best = max(counts.values())
    if best == 0:
        return "\n"
    for newline in ("\n", "\r\n", "\r"):  # ties: the most common convention
        if counts[newline] == best:
            return newline
    return "\n"  # not reached


def round_trips(module: cst.Module, data: bytes) -> bool:
    """Whether libcst gives back the file's exact bytes (it drops a leading form feed and lone "\\r" endings)."""
    return module.bytes == data


def keep_line_endings(original: cst.Module, fixed: cst.Module, data: bytes) -> cst.Module:
    """`fixed` with the lines a fix added ending like most of the file's lines do.

    libcst ends a new line with the module's `default_newline`, which is the ending of the file's
    *first* line; in a file of mixed endings that may not be the common one. Lines that were there
    before keep their own ending: only Newline nodes that are not in `original` change.
    """
    import libcst as cst

    wanted = dominant_newline(data)
    if wanted == original.default_newline:
        return fixed
    old: set[int] = set()

    class _Old(cst.CSTVisitor):
        def visit_Newline(self, node: cst.Newline) -> None:
            old.add(id(node))

    class _New(cst.CSTTransformer):
        def leave_Newline(self, original_node: cst.Newline, updated_node: cst.Newline) -> cst.Newline:
            if id(original_node) in old or updated_node.value is not None:
                return updated_node
            return updated_node.with_changes(value=wanted)

    original.visit(_Old())
    return fixed.visit(_New())
