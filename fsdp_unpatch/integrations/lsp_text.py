"""An editor's buffer as the engine sees it, and the engine's positions as the editor counts them.

No pygls here: the language server (`lsp_server.py`) hands over the text and a function that counts a
string's length in the client's position units (UTF-16 by default in the Language Server Protocol).
The engine counts lines as Python does (`\\n`, `\\r\\n`, `\\r`, as LSP does too) and columns in code
points, 1-based; LSP counts both from 0.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Callable

# LSP's three line breaks (str.splitlines knows more, such as form feed, that neither Python nor LSP breaks at)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")

Units = Callable[[str], int]  # a string's length in the client's position units
Position = tuple[int, int]  # 0-based line, character in client units


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its line break (the last one may have none)."""
    return _LINE.findall(text)


def encoded(text: str) -> tuple[bytes, str]:
    """The buffer as the bytes its file would hold, and their encoding: a coding cookie (`# -*- coding: gbk
    -*-`) says how the engine decodes the file, so the text is encoded that way; else (or if the text
    cannot be) UTF-8."""
    head = "".join(split_lines(text)[:2]).encode("utf-8", "replace")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
        if encoding == "utf-8-sig":  # a byte order mark the editor kept is a character of the text already
            encoding = "utf-8"
        return text.encode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeError):
        return text.encode("utf-8", "surrogateescape"), "utf-8"


def decoded(data: bytes, encoding: str) -> str:
    return data.decode(encoding, "surrogateescape")


def end_of(lines: list[str], units: Units) -> Position:
    """Where the document ends: after the last line break, or after the last character."""
    if not lines:
        return 0, 0
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return len(lines), 0
    return len(lines) - 1, units(last)


def position(lines: list[str], line: int, column: int, units: Units) -> Position:
    """The engine's 1-based (line, code-point column) as the client's position. Edits may end one line past
    the last (a region of whole lines up to the end of the file): that is the end of the document."""
    index = line - 1
    if index >= len(lines):
        return end_of(lines, units)
    text = lines[index].rstrip("\r\n")
    return index, units(text[: max(column - 1, 0)])


def contains(start: Position, end: Position, point: Position) -> bool:
    """Whether `point` lies in the range from `start` to `end`, both ends included (a hover on a zero-width
    finding, such as a syntax error's position, still finds it)."""
    return start <= point <= end


def overlaps(start: Position, end: Position, other_start: Position, other_end: Position) -> bool:
    return start <= other_end and other_start <= end
