"""Reading source files faithfully and writing fixed ones without ever losing a line.

Reading refuses, with a message that names the problem, what is not a regular file, what is too large
to handle, and what cannot be decoded. Parsing goes through CPython's own parser first (to an AST only:
nothing is ever executed), because libcst's native parser can overflow its stack or take minutes on
pathologically nested input that CPython rejects in milliseconds. Writing goes through a temporary file
in the same folder, flushed to disk and renamed over the original; see `fixes/transaction.py` and the README's Safety section.
"""

from __future__ import annotations

import ast
import codecs
import errno
import os
import re
import signal
import stat
import tempfile
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Literal, Optional, TypeVar, Union

if TYPE_CHECKING:  # loaded by parse_source: reading files (and the prefilter) must not cost libcst's import
    import libcst as cst

# A file larger than this is not even read: no Python module is this big, and reading it would cost its
# size in memory twice over (the bytes and the prefilter's lower-cased copy).
MAX_READ_BYTES = 64 * 1024 * 1024
# A file larger than this is not parsed: a libcst tree takes about 600 times its source in memory
# (a 1.4 MB module needs ~840 MiB and 15 s), so 4 MiB already costs ~2.5 GiB.
MAX_PARSE_BYTES = 4 * 1024 * 1024
# libcst's native parser recurses on the thread's stack; deep (but valid) nesting overflows the 8 MiB
# main-thread stack and kills the process. Parsing runs in a thread with this much stack instead
# (address space reserved, only the pages touched are used).
PARSER_STACK_BYTES = 512 * 1024 * 1024
TEMPORARY_SUFFIX = ".fsdp-unpatch.tmp"
BACKUP_SUFFIX = ".fsdp-unpatch.bak"

# CPython's parser refuses these before any deep recursion; libcst would crash or run for minutes on them.
_TOO_DEEP = (
    "too many nested parentheses",
    "too many levels of indentation",
    "too complex",
    "nested too deeply",
    "too many statically nested blocks",
)


# What went wrong with a file: it cannot be read (or decoded), it is too large to read, it does not parse, or
# a fix cannot be written. The rules layer makes each kind its rule's finding (`rules/source_errors.py`).
SourceErrorKind = Literal["read", "too-large", "parse", "write"]


class SourceError(Exception):
    """A file that cannot be read, decoded, parsed or written; the message names the problem."""

    def __init__(self, kind: SourceErrorKind, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.kind = kind
        self.line = line
        self.column = column


@dataclass
class SourceFile:
    path: Path
    display: str  # the path as the user sees it in reports
    data: bytes
    mtime_ns: int
    size: int
    inode: int = 0  # 0: unknown (standard input); else compared before writing, like mtime and size
    device: int = 0
    ctime_ns: int = 0  # the inode's change time when read (the cache's index of unchanged files)
    read_ns: int = 0  # when it was read (wall clock)


# reading ------------------------------------------------------------------------------------------
def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _read_error(path: Path, error: OSError) -> SourceError:
    if os.path.islink(path):
        target = os.readlink(path)
        if error.errno == errno.ENOENT:
            return SourceError("read", f"cannot read file: broken symbolic link (to {target!r}, which does not exist)")
        if error.errno == errno.ELOOP:
            return SourceError("read", f"cannot read file: symbolic link loop (to {target!r})")
    if error.errno == errno.ELOOP:
        return SourceError("read", "cannot read file: symbolic link loop")
    return SourceError("read", f"cannot read file: {error.strerror or error}")


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def read_source(path: Path, display: str) -> SourceFile:
    """The file's bytes, exactly; refuses what is not a regular file or is too large to handle."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block a plain read forever
            raise SourceError("read", f"cannot read file: it is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > MAX_READ_BYTES:
            raise SourceError(
                "too-large",
                f"file too large to read: {_megabytes(info.st_size)} (the limit is {_megabytes(MAX_READ_BYTES)})",
            )
        read_ns = time.time_ns()  # before the stat: a change after this is newer than the stat's times
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(descriptor, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):  # replaced between the stat and the open
                raise SourceError("read", f"cannot read file: it is {_kind(info.st_mode)}, not a regular file")
            data = handle.read(MAX_READ_BYTES + 1)
    except OSError as error:
        raise _read_error(path, error) from error
    if len(data) > MAX_READ_BYTES:
        raise SourceError("too-large", f"file too large to read: more than {_megabytes(MAX_READ_BYTES)}")
    return SourceFile(
        path=path,
        display=display,
        data=data,
        mtime_ns=info.st_mtime_ns,
        size=info.st_size,
        inode=info.st_ino,
        device=info.st_dev,
        ctime_ns=info.st_ctime_ns,
        read_ns=read_ns,
    )


def read_candidate(candidate) -> SourceFile:
    """A discovered file's bytes (`discovery.Candidate`): from standard input, or read from disk; a folder
    the walk could not enter is reported as such."""
    if candidate.data is not None:
        return SourceFile(candidate.path, candidate.display, candidate.data, 0, len(candidate.data))
    if candidate.problem is not None:
        raise SourceError("read", candidate.problem)
    return read_source(candidate.path, candidate.display)


# parsing ------------------------------------------------------------------------------------------
def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    line_start = max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def declared_encoding(data: bytes) -> str:
    """The encoding the file declares (PEP 263 cookie, BOM), else UTF-8; as Python itself finds it."""
    import io
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def _decode_error(data: bytes) -> Optional[SourceError]:
    """Why the bytes are not text in the file's encoding, placed at the first bad byte; None if they are."""
    try:
        encoding = declared_encoding(data)
    except SyntaxError as error:  # an unknown encoding in the cookie, or a cookie that contradicts the BOM
        if "invalid or missing encoding declaration" in str(error):  # first lines not UTF-8, and no cookie
            return SourceError("read", f"cannot decode file: {error}; {_encoding_hint(data, 'utf-8')}")
        return SourceError("read", f"cannot decode file: {error}")
    try:
        codecs.lookup(encoding).decode(data)
    except UnicodeDecodeError as error:
        line, column = _line_column(data, error.start)
        bad = data[error.start : error.end][:4].hex(" ")
        return SourceError(
            "read",
            f"cannot decode file as {encoding}: byte(s) {bad} at line {line}, column "
            f"{column} ({error.reason}); {_encoding_hint(data, encoding)}",
            line,
            column,
        )
    return None


def _encoding_hint(data: bytes, encoding: str) -> str:
    """How to make the file readable: a file without a cookie that reads as GBK (Chinese comments written on
    a GBK system) is told the cookie that declares it."""
    if encoding == "utf-8":
        try:
            data.decode("gbk")
        except UnicodeDecodeError:
            pass
        else:
            return "it reads as GBK: add `# -*- coding: gbk -*-` as its first or second line, or convert it to UTF-8"
    return "declare the file's encoding with a PEP 263 comment or convert it"


def _python_error(data: bytes) -> tuple[Optional[SourceError], bool]:
    """What CPython's parser says about the bytes (an AST only, never executed), and whether it is about nesting.

    (None, False) when CPython accepts them. Nesting that CPython refuses is reported as such, before libcst
    sees the file. Other syntax errors count only if libcst fails too: libcst may know newer syntax than
    the running Python.
    """
    try:
        with warnings.catch_warnings():  # CPython's remarks on the scanned code (`1()`...) are not ours to print
            warnings.simplefilter("ignore")
            compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (RecursionError, MemoryError):
        return SourceError("parse", "too deeply nested to parse safely (CPython's parser gives up on it too)"), True
    except SyntaxError as error:
        line, column = error.lineno or 1, error.offset or 1
        message = error.msg or str(error)
        if any(marker in message for marker in _TOO_DEEP):
            return SourceError("parse", f"too deeply nested to parse safely: {message}", line, column), True
        return SourceError("parse", f"syntax error: {message}", line, column), False
    except ValueError as error:  # what the compiler refuses outright (NUL bytes are checked before)
        return SourceError("parse", f"syntax error: {error}"), False
    return None, False


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


def parse_source(source: SourceFile) -> cst.Module:
    """Parse with libcst from bytes, so that the declared encoding is detected and kept.

    Raises SourceError for: a NUL byte, bytes the file's encoding cannot decode, a file larger than
    MAX_PARSE_BYTES, nesting too deep to parse safely, a syntax error (placed by CPython's parser).
    """
    import libcst as cst

    data = source.data
    nul = data.find(b"\0")
    if nul >= 0:
        line, column = _line_column(data, nul)
        raise SourceError(
            "read",
            f"file contains a NUL byte at line {line}, column {column}: a binary file, not Python source",
            line,
            column,
        )
    if len(data) > MAX_PARSE_BYTES:
        raise SourceError(
            "too-large",
            f"file too large to parse safely: {_megabytes(len(data))} (the limit is "
            f"{_megabytes(MAX_PARSE_BYTES)}; libcst needs about 600 times a file's size "
            "in memory)",
        )
    decode_error = _decode_error(data)
    if decode_error is not None:
        raise decode_error
    python_error, nesting = _python_error(data)
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


def _is_file(path: Path) -> bool:
    """Like Path.is_file, but False (not PermissionError) for a path inside a folder this user cannot enter."""
    try:
        return path.is_file()
    except OSError:
        return False


def module_name_for(path: Path) -> tuple[str, bool]:
    """Dotted module name from the packages (folders with `__init__.py`) around the file."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while _is_file(folder / "__init__.py"):
        parts.insert(0, folder.name)
        if folder.parent == folder:
            break
        folder = folder.parent
    return ".".join(parts) or path.stem, is_package


def resolve_relative(module: Optional[str], is_package: bool, level: int, name: str) -> Optional[str]:
    """Turn `from ..x import y` into an absolute module name, given the importing module's name (as
    `module_name_for` gives it); None when the import climbs above the top package. Shared by the ast tier
    (`screen.py`) and the libcst tier (`names.py`), so it lives here, where no libcst is loaded."""
    if level == 0:
        return name
    if module is None:
        return None
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([name] if name else []))


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


# writing ------------------------------------------------------------------------------------------
_DEFERRED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised like Ctrl-C so that the run unwinds the same way (clean-up, exit 130)."""


# Signals received, and whether they are acted on only at checkpoints (inside `at_checkpoints`).
_SIGNALS: dict = {"received": [], "at_checkpoints": False}


def _interrupt(name: str) -> KeyboardInterrupt:
    return KeyboardInterrupt() if name == "SIGINT" else Terminated(name)


@contextmanager
def termination_as_interrupt() -> Iterator[list[str]]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt: temporaries are removed, a group
    of files being written is finished (or rolled back), and the command exits 130 with its message.

    Yields the names of the signals received, so that the caller knows the run was interrupted whatever
    exception the interrupt came out as.
    """
    received: list[str] = []

    def interrupt(signum: int, frame) -> None:
        received.append(signal.Signals(signum).name)
        if not _SIGNALS["at_checkpoints"]:
            raise _interrupt(received[-1])

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                number = getattr(signal, name)
                previous[number] = signal.signal(number, interrupt)
    _SIGNALS["received"] = received
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _SIGNALS["received"] = []


@contextmanager
def at_checkpoints() -> Iterator[None]:
    """Within the block, a signal is acted on at the next `checkpoint()` (between files, between groups),
    never in the middle of libcst: an exception raised inside its native parser's callbacks or its metadata
    clean-up comes out as another error, or aborts the process at exit."""
    before = _SIGNALS["at_checkpoints"]
    _SIGNALS["at_checkpoints"] = True
    try:
        yield
    finally:
        _SIGNALS["at_checkpoints"] = before
    checkpoint()


def checkpoint() -> None:
    """Raise KeyboardInterrupt (or Terminated) if a signal arrived since the run started."""
    received = _SIGNALS["received"]
    if received:
        raise _interrupt(received[-1])


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C (and termination signals) until the block is done: a write is finished, then the run stops.

    The signals are blocked, not lost: the kernel delivers them when the block ends, and Python raises
    KeyboardInterrupt (or the process terminates) right there, between two files. The kernel may also hand a
    process-wide signal to another thread of the process (torch's, an embedding application's), whose mask
    this block cannot change; Python would then act on it in this thread at once. So, in the main thread,
    the handlers only note such a signal during the block, and it is raised again once the block is done.
    """
    noted: list[int] = []
    handlers: dict[int, Union[Callable, int]] = {}
    if threading.current_thread() is threading.main_thread():
        for number in _DEFERRED_SIGNALS:
            current = signal.getsignal(number)
            if current is not None:  # None: a handler set outside Python, which could not be put back
                handlers[number] = current
                signal.signal(number, lambda signum, frame: noted.append(signum))
    masked = hasattr(signal, "pthread_sigmask")  # not POSIX: the rename itself is still atomic
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS) if masked else None
    try:
        yield
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a blocked signal arrives now, to its handler
        for number in dict.fromkeys(noted):
            signal.raise_signal(number)


def changed_on_disk(source: SourceFile) -> bool:
    """Whether the file is no longer what was read: another inode, size, mtime or content."""
    try:
        info = os.stat(source.path)
    except OSError:
        return True
    if (info.st_mtime_ns, info.st_size) != (source.mtime_ns, source.size):
        return True
    if source.inode and (info.st_ino, info.st_dev) != (source.inode, source.device):
        return True
    try:
        with open(source.path, "rb") as handle:
            return handle.read(source.size + 1) != source.data
    except OSError:
        return True


def _fsync_folder(folder: str) -> None:
    """Make a rename in `folder` durable; not every platform or file system can, and that is not an error."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _discard(temporary: Optional[str]) -> None:
    if temporary is not None:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _write_error(error: OSError) -> SourceError:
    return SourceError("write", f"cannot write file: {error.strerror or error}; the file is unchanged")


def _writable(path: str, info: os.stat_result) -> bool:
    """A file its owner may not write is read-only, even to root; so is one this process may not write."""
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def _keeps_owner(info: os.stat_result) -> bool:
    """Whether a new file (the renamed temporary) can be given the original's owner and group."""
    if not hasattr(os, "getuid"):
        return True
    if os.geteuid() == 0:
        return True
    return info.st_uid == os.geteuid() and info.st_gid in (os.getegid(), *os.getgroups())


def _temporary(path: str, suffix: str) -> tuple[int, str]:
    """A new file `.NAME.PID.XXXX<suffix>` next to `path`: the process id tells a later run whether its
    writer is gone (killed with SIGKILL), so that the leftover can be removed (`remove_leftovers`)."""
    folder, name = os.path.split(path)
    return tempfile.mkstemp(dir=folder, prefix=f".{name}.{os.getpid()}.", suffix=suffix)


_LEFTOVER = re.compile(r"^\..+\.(\d+)\.[^.]+" + re.escape(TEMPORARY_SUFFIX) + "$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but is someone else's
        return True
    return True


def remove_leftovers(folder: str) -> list[str]:
    """Remove the temporaries that a killed fix (SIGKILL: no clean-up possible) left in `folder`.

    Only temporaries (new content never renamed into place) are removed: they hold no one's data. Backups
    (`*.fsdp-unpatch.bak`) hold a file's old content and are left for the user.
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in names:
        match = _LEFTOVER.match(name) if name.endswith(TEMPORARY_SUFFIX) else None
        if match and int(match.group(1)) != os.getpid() and not _alive(int(match.group(1))):
            try:
                os.unlink(os.path.join(folder, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _flushed_copy(path: str, data: bytes, info: os.stat_result) -> str:
    """A temporary next to `path` holding `data`, flushed, with the original's owner and mode."""
    descriptor, temporary = _temporary(path, TEMPORARY_SUFFIX)
    try:
        try:
            _write_all(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            os.chown(temporary, info.st_uid, info.st_gid)  # before the mode: chown clears setuid bits
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
    except BaseException:
        _discard(temporary)
        raise
    return temporary


def _overwrite(source: SourceFile, path: str, data: bytes) -> None:
    """Write `data` into the file's own inode, keeping a backup of the old content until it is on disk.

    A rename would give the path a new inode: the other hard links would keep the old text, and a file
    of another owner would change owner. So: (1) the old content goes to a backup file next to it,
    flushed; (2) the file is overwritten, truncated and flushed; (3) the backup is removed. An error in
    (2) puts the old content back; if even that fails, the backup stays and the error names it.
    """
    backup: Optional[str] = None
    try:
        descriptor, backup = _temporary(path, BACKUP_SUFFIX)
        try:
            _write_all(descriptor, source.data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if changed_on_disk(source):
            raise SourceError("write", "file changed on disk while it was being fixed; not written")
        with open(path, "r+b") as handle:
            try:
                handle.write(data)
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as error:
                try:
                    handle.seek(0)
                    handle.write(source.data)
                    handle.truncate()
                    handle.flush()
                    os.fsync(handle.fileno())
                except OSError:
                    kept, backup = backup, None
                    raise SourceError(
                        "write",
                        f"cannot write file: {error.strerror or error}; its old content is saved in {kept}",
                    ) from error
                raise
    except OSError as error:
        raise _write_error(error) from error
    finally:
        _discard(backup)
