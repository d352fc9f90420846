"""Reading source files faithfully: their exact bytes, or a `SourceError` that names the problem.

Reading refuses what is not a regular file (a FIFO would block the read forever), what is too large to
handle, and (`decode_error`) bytes that the file's declared encoding cannot decode.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional

# A file larger than this is not even read: no Python module is this big, and reading it would cost its
# size in memory twice over (the bytes and the prefilter's lower-cased copy).
MAX_READ_BYTES = 64 * 1024 * 1024


# What went wrong with a file: it cannot be read (or decoded), it is too large to read, it does not parse, or
# a fix cannot be written. The rules layer makes each kind its rule's finding (`rules/registry.py`, `error_finding`).
SourceErrorKind = Literal["read", "too-large", "parse", "write"]


class SourceError(Exception):
    """A file that cannot be read, decoded, parsed or written; the message names the problem."""

    def __init__(self, kind: SourceErrorKind, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.kind = kind
        self.line = line
        self.column = column

    def __reduce__(self):  # as a worker process sends it back (`batch._judge`): every field, not the message alone
        return (type(self), (self.kind, str(self), self.line, self.column))


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


def megabytes(size: int) -> str:
    """A size as the messages give it ("1.5 MB")."""
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
                f"file too large to read: {megabytes(info.st_size)} (the limit is {megabytes(MAX_READ_BYTES)})",
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
        raise SourceError("too-large", f"file too large to read: more than {megabytes(MAX_READ_BYTES)}")
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


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column of a byte offset."""
    line_start = max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def declared_encoding(data: bytes) -> str:
    """The encoding the file declares (PEP 263 cookie, BOM), else UTF-8; as Python itself finds it."""
    import io
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def decode_error(data: bytes) -> Optional[SourceError]:
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
        line, column = line_column(data, error.start)
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
