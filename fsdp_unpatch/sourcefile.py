"""Reading source files faithfully and writing fixed ones atomically."""
from __future__ import annotations

import ast
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst


class SourceError(Exception):
    """A file that cannot be read, decoded, parsed or written; the message names the problem."""

    def __init__(self, code: str, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.code = code
        self.line = line
        self.column = column


@dataclass
class SourceFile:
    path: Path
    display: str  # the path as the user sees it in reports
    data: bytes
    mtime_ns: int
    size: int


def read_source(path: Path, display: str) -> SourceFile:
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except OSError as error:
        raise SourceError("FSU902", f"cannot read file: {error.strerror or error}") from error
    return SourceFile(path=path, display=display, data=data, mtime_ns=info.st_mtime_ns, size=info.st_size)


def parse_source(source: SourceFile) -> cst.Module:
    """Parse with libcst from bytes, so that the declared encoding is detected and kept."""
    try:
        return cst.parse_module(source.data)
    except cst.ParserSyntaxError as error:
        raise _syntax_error(source.data, error) from error
    except (UnicodeDecodeError, LookupError, SyntaxError) as error:
        raise SourceError("FSU902", f"cannot decode file: {error}") from error


def _syntax_error(data: bytes, error: cst.ParserSyntaxError) -> SourceError:
    """CPython's parser places syntax errors better than libcst's; ask it first."""
    try:
        compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as python_error:
        if python_error.lineno:
            return SourceError(
                "FSU901", f"syntax error: {python_error.msg}",
                line=python_error.lineno, column=python_error.offset or 1,
            )
    except (ValueError, UnicodeDecodeError):  # NUL bytes, undecodable text: libcst's message will do
        pass
    message = error.message.replace("parser error: ", "")
    return SourceError("FSU901", f"syntax error: {message}", line=error.raw_line, column=error.raw_column + 1)


def module_name_for(path: Path) -> tuple[str, bool]:
    """Dotted module name from the packages (folders with `__init__.py`) around the file."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        if folder.parent == folder:
            break
        folder = folder.parent
    return ".".join(parts) or path.stem, is_package


def changed_on_disk(source: SourceFile) -> bool:
    try:
        info = os.stat(source.path)
    except OSError:
        return True
    if (info.st_mtime_ns, info.st_size) != (source.mtime_ns, source.size):
        return True
    with open(source.path, "rb") as handle:
        return handle.read() != source.data


def write_atomic(source: SourceFile, data: bytes) -> None:
    """Replace the file's content by `data`: temporary file in the same folder, flushed, renamed.

    The file's permission bits are kept. Raises SourceError when the file changed on disk since it
    was read, or cannot be written; the file is then unchanged and no temporary file is left behind.
    """
    if changed_on_disk(source):
        raise SourceError("FSU903", "file changed on disk while it was being fixed; not written")
    path = source.path
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".fsdp-unpatch")
    except OSError as error:
        raise SourceError("FSU903", f"cannot write file: {error.strerror or error}") from error
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        _discard(temporary)
        if isinstance(error, OSError):
            raise SourceError("FSU903", f"cannot write file: {error.strerror or error}") from error
        raise


def _discard(temporary: Optional[str]) -> None:
    if temporary is not None:
        try:
            os.unlink(temporary)
        except OSError:
            pass
