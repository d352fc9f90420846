"""Large displays of numbers (a table, a lookup list) held out of every parse of a file.

No finding, fix or proof reads a number, but a parser pays for every element: libcst about 0.3 ms and 6 KB,
CPython's `ast` and a walk of its tree about 10 us. A list of a million numbers inside a kept statement would
cost minutes and gigabytes. So a list or tuple display of `ABOVE` bytes or more whose elements are numbers
(or lists and tuples of numbers) is replaced, before parsing, by a placeholder: a parenthesized name on as
many lines, so every line stays where it is; the columns after it on its last line are mapped back
(`holes.Excerpt.file_column`), and the original bytes are put back after a fix (`holes.Excerpt.splice`).

The displays are found in the bytes, not the tree (finding them in the tree would mean parsing them). A match
may lie in a string or a comment; so `placed` checks, on the parsed text, that each placeholder is a name
where the display was: anything else, and the text is parsed as it is.
"""

from __future__ import annotations

import ast
import keyword
import re
import sys
from dataclasses import dataclass
from typing import Callable, Optional

from fsdp_unpatch.files.lines import line_starts

HOLE = b"__fsdp_unpatch_hole_"
PLACEHOLDER = HOLE + b"literal_"
ABOVE = 4096
# Possessive quantifiers (Python 3.11+): the search keeps no backtracking state per element (a plain `*` on a
# million elements takes about 500 MB). Before 3.11 nothing is held out.
_NUMBER = rb"[-+]?\d(?:[eE][-+]|[\w.])*+"
# a list of numbers, or a tuple of two or more (`(1)` is a number); as elements, numbers and such displays
_FLAT = rb"\[\s*+N(?:\s*+,\s*+N)*+\s*+,?\s*+\]|\(\s*+N(?:\s*+,\s*+N)++\s*+,?\s*+\)"
_ELEMENT = rb"(?:N|" + _FLAT + rb")"
_DISPLAY = re.compile(_FLAT.replace(b"N", _ELEMENT).replace(b"N", _NUMBER)) if sys.version_info >= (3, 11) else None
# What ends an operand (or a keyword) just before a bracket.
_BEFORE = re.compile(rb"(?:(\w+)|[)\]}'\"])\s*\Z")
# Cheap gate: a display of ABOVE bytes is a run that long of these bytes, brackets aside. Tried only where a
# run starts (the look-behind): tried at every byte, a run of prose or code was scanned again from each of its
# bytes (over torch-npu's sources, five times as long).
_RUN = re.compile(rb"(?<![-+\w.,\s])[-+\w.,\s]{%d}" % (ABOVE - 2))


@dataclass(frozen=True)
class Held:
    """`text`: the file with each display replaced; `literals`: (placeholder, original display, offset of the
    display in the file), in file order."""

    text: bytes
    literals: list[tuple[bytes, bytes, int]]


def may_hold(data: bytes) -> bool:
    """Whether `hold` may find a display in the file (a quick search of its bytes)."""
    return _DISPLAY is not None and _RUN.search(data) is not None


_LAST: list[tuple[bytes, Optional[Held]]] = []  # the last file held out (a run reads each file several times)


def hold(data: bytes) -> Optional[Held]:
    """The file with its large displays of numbers held out; None when it has none (or spells the placeholder)."""
    if _DISPLAY is None or _RUN.search(data) is None or HOLE in data:
        return None
    for known, held in _LAST:
        if known is data or known == data:
            return held
    held = _hold(data)
    _LAST[:] = [(data, held)]
    return held


def _hold(data: bytes) -> Optional[Held]:
    literals: list[tuple[bytes, bytes, int]] = []
    out, position = [], 0
    assert _DISPLAY is not None
    for match in _DISPLAY.finditer(data):
        start, end = match.span()
        if end - start < ABOVE or _after_an_operand(data, start):
            continue
        original = data[start:end]
        placeholder = placeholder_for(len(literals), original)
        literals.append((placeholder, original, start))
        out += [data[position:start], placeholder]
        position = end
    if not literals:
        return None
    out.append(data[position:])
    return Held(b"".join(out), literals)


def _after_an_operand(data: bytes, start: int) -> bool:
    """Whether the bracket at `start` follows an operand, so that it subscripts or calls it (`a[0, 1]`,
    `f(0, 1)`): no display. After a keyword (`return [0, 1]`, `in (0, 1)`) it opens one."""
    found = _BEFORE.search(data, max(0, start - 256), start)
    if found is None:
        return False
    word = found.group(1)
    return word is None or not keyword.iskeyword(word.decode()) or word in (b"None", b"True", b"False")


def placeholder_for(number: int, original: bytes) -> bytes:
    """A parenthesized name on as many lines as `original` (each line ending kept). Its end column is not the
    display's (padding a line of a million elements would cost what holding it out saves): the excerpt maps
    the columns after it (`holes.Excerpt.file_column`)."""
    name = PLACEHOLDER + str(number).encode() + b"__"
    lines = original.splitlines(keepends=True)
    return b"(" + name + b"".join(line[len(line.rstrip(b"\r\n")) :] for line in lines[:-1]) + b")"


def end_shift(placeholder: bytes, original: bytes) -> int:
    """How many columns the display ends after where its placeholder ends (on the last line of each; both
    are ASCII, so bytes are columns)."""
    if b"\n" not in original and b"\r" not in original:
        return len(original) - len(placeholder)
    return len(original.splitlines()[-1]) - 1


def placed(tree: ast.AST, text: bytes) -> bool:
    """Whether every placeholder spelled in `text` is a name in `tree` (parsed from `text`) at the offset where
    it is spelled: none lies in a string or a comment."""
    spelled = {match.start() for match in re.finditer(re.escape(PLACEHOLDER), text)}
    if not spelled:
        return True
    starts = line_starts(text)
    prefix = PLACEHOLDER.decode()
    found = {
        starts[node.lineno - 1] + node.col_offset
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id.startswith(prefix)
    }
    return found == spelled


def parse_held(data: bytes, parse: Callable[[bytes], Optional[ast.Module]]) -> Optional[ast.Module]:
    """`parse(data)`, with the file's large displays of numbers held out when each is placed (`placed`)."""
    held = hold(data)
    if held is not None:
        tree = parse(held.text)
        if tree is not None and placed(tree, held.text):
            return tree
    return parse(data)
