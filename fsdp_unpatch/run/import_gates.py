"""The import net's byte gates (`import_net.py`): which files it must parse. A gate may let through a file that
needs no parse; it never refuses one whose tree has an import read (`analysis/bindings.imports`) the net looks for.

The gates read a file's *view*: its bytes when CPython reads its names from them as they stand, else its text as
CPython reads names (PEP 3131: an identifier is NFKC-normalized, so `import pkg.ｐatch as p` imports `pkg.patch`
and `p.ｃast` reads `cast`), in UTF-8.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize
import unicodedata
from typing import Iterable, Iterator, Optional, Sequence

from fsdp_unpatch.project.module_names import resolve_relative

_ASCII = bytes(range(128))
_HARMLESS: dict[str, bool] = {}  # a non-ASCII character -> whether it can stand in no name


def view(data: bytes) -> bytes:
    """What the gates search in `data`: `data` when it is ASCII, or UTF-8 whose names are already as CPython
    normalizes them (the usual non-ASCII file: CJK comments, full-width punctuation); else the NFKC-normalized
    text in UTF-8 (a file of another declared encoding: its text in UTF-8, normalized where it must be). Bytes
    CPython cannot decode are returned as they are (CPython does not parse them either)."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]  # no part of the first line's first name (`from` at the file's start)
        if data.isascii():
            return data
        return _text_view(data, bom=True)
    if data.isascii():
        return data
    return _text_view(data, bom=False)


def _text_view(data: bytes, bom: bool) -> bytes:
    try:
        encoding = "utf-8" if bom else tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data
    utf8 = encoding in ("utf-8", "utf-8-sig")  # `data` in UTF-8: the view can be `data` itself
    if unicodedata.is_normalized("NFKC", text):
        return data if utf8 else text.encode("utf-8", "surrogateescape")
    # A character that can stand in no name (`，` `：` `①` `₁`, the ideographic space) ends the names around it and
    # is none of theirs: where the text is normalized but for them, every name is as CPython normalizes it.
    wide = set(data.translate(None, _ASCII).decode("utf-8", "surrogateescape") if utf8 else text)
    blanked = text
    for c in wide:
        if _harmless(c) and not unicodedata.is_normalized("NFKC", c):
            blanked = blanked.replace(c, " ")  # one C pass each: a table for `str.translate` costs more
    if blanked is not text and unicodedata.is_normalized("NFKC", blanked):
        return data if utf8 else text.encode("utf-8", "surrogateescape")
    return unicodedata.normalize("NFKC", text).encode("utf-8", "surrogateescape")


def _harmless(c: str) -> bool:
    """Whether `c` can stand in no name (CPython checks a name's characters before it normalizes them)."""
    known = _HARMLESS.get(c)
    if known is None:
        known = _HARMLESS[c] = not ("a" + c).isidentifier()
    return known


_SPACE = b" \t\r\n\\\f"
_ID = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | frozenset(range(128, 256))
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_").__contains__
_DOT, _COMMA, _OPEN, _CLOSE = b".,()"
_IMPORT = re.compile(rb"(?<![A-Za-z0-9_\x80-\xff])import(?![A-Za-z0-9_\x80-\xff])")
_FROM = re.compile(rb"(?<![A-Za-z0-9_\x80-\xff])from(?![A-Za-z0-9_\x80-\xff])")
# What a `from m import ...` list holds between `import` and a name: names, `as`, commas, an opening parenthesis,
# white space and continuations; a line of it may end in a comment (inside the parentheses).
_LIST = re.compile(rb"[ \t\f\\,(A-Za-z0-9_\x80-\xff]*")
_LIST_LINE = re.compile(rb"[ \t\f\\,(A-Za-z0-9_\x80-\xff]*(?:#[^\r\n]*)?")
_SPEC = re.compile(rb"[ \t\f.A-Za-z0-9_\x80-\xff]*")  # `from` ... `import`: dots, names, white space
# What may stand between a name and `as`, and between `as` and the name it binds: white space, continuations,
# comments (inside parentheses).
_GAP = rb"(?:[ \t\f\r\n\\]|#[^\r\n]*[\r\n])+"
_LINES_UP = 2000  # lines a gate walks up before it lets the file through


def may_read(data: bytes, names: Iterable[str], modules: Iterable[str], importer: Sequence[tuple[str, bool]]) -> bool:
    """Whether `data` (a view) can hold an import read of one of `names` from one of `modules` by the module
    `importer` names (its names, each with whether it is a package), as `bindings.imports` finds it:
    - `from M import ..., n` (however spaced, continued or commented) whose `M` resolves to one of `modules`;
    - `x.n` whose `x` (what precedes the dot, comments between) is a module's last name (`import pkg.m`,
      `from pkg import m`), a name bound by `as` anywhere in the file, or a closing parenthesis (`(m).n`)."""
    wanted = set(modules)
    tails = {m.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape") for m in wanted}
    bases: Optional[set[bytes]] = None
    for name in names:
        for at in _occurrences(data, name.encode("utf-8", "surrogateescape")):
            ends = _preceding(data, at)
            if ends is None:
                return True
            for end in ends:
                before = data[end - 1]
                if before == _DOT:
                    if bases is None:
                        bases = tails | _as_names(data, tails)
                    if _attribute_of(data, end - 1, bases):
                        return True
                elif before in (_COMMA, _OPEN) or (
                    data[max(0, end - 6) : end] == b"import" and not (end > 6 and data[end - 7] in _ID)
                ):
                    if _in_from_list(data, at, wanted, importer):
                        return True
    return False


def _as_names(data: bytes, tails: set[bytes]) -> set[bytes]:
    """The names bound by `as` to a module whose last name is one of `tails`: `import pkg.m as x`,
    `from pkg import m as x` (`bindings.imports` follows no other alias to the module)."""
    if not tails:
        return set()
    spelled = b"|".join(re.escape(t) for t in sorted(tails))
    pattern = rb"(?<![A-Za-z0-9_\x80-\xff])(?:%s)%sas%s([A-Za-z0-9_\x80-\xff]+)" % (spelled, _GAP, _GAP)
    return set(re.findall(pattern, data))


def _occurrences(data: bytes, spelled: bytes) -> Iterator[int]:
    """Where `spelled` stands as a whole word (ASCII word characters around it: a wider one may still be it)."""
    at = data.find(spelled)
    while at >= 0:
        end = at + len(spelled)
        if not (at and _WORD(data[at - 1])) and not (end < len(data) and _WORD(data[end])):
            yield at
        at = data.find(spelled, end)


def _line_start(data: bytes, at: int) -> int:
    return max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1


def _line_above(data: bytes, start: int) -> tuple[int, int]:
    """(start, end) of the line before the one starting at `start` (> 0), its line break left out."""
    end = start - 1
    if data[end] == 10 and end > 0 and data[end - 1] == 13:
        end -= 1
    return _line_start(data, end), end


def _preceding(data: bytes, at: int) -> Optional[list[int]]:
    """The ends of what may be the token before `at`, past white space, continuations and comments: on its own
    line, what precedes (no comment can, it would hide `at`); on a line above, where a `#` may start a comment
    (or a string holds it), each cut of the line. Empty when nothing but white space and comments precede;
    None when too many lines do to walk them (the caller lets the file through)."""
    start = _line_start(data, at)
    own = data[start:at].rstrip(_SPACE)
    if own:
        return [start + len(own)]
    ends: list[int] = []
    for _ in range(_LINES_UP):
        if start == 0:
            return ends
        start, end = _line_above(data, start)
        line = data[start:end]
        blank = False
        for cut in [len(line), *_hashes(line)]:
            code = line[:cut].rstrip(_SPACE)
            if code:
                ends.append(start + len(code))
            else:
                blank = True
        if not blank:
            return ends
    return None


def _hashes(line: bytes) -> Iterator[int]:
    at = line.find(b"#")
    while at >= 0:
        yield at
        at = line.find(b"#", at + 1)


def _attribute_of(data: bytes, dot: int, bases: set[bytes]) -> bool:
    """Whether the dot at `dot` follows one of `bases` (a whole name) or a closing parenthesis."""
    ends = _preceding(data, dot)
    if ends is None:
        return True
    for end in ends:
        before = data[end - 1]
        if before == _CLOSE:
            return True
        if before in _ID:
            start = end - 1
            while start > 0 and data[start - 1] in _ID:
                start -= 1
            if data[start:end] in bases:
                return True
    return False


def _in_from_list(data: bytes, at: int, modules: set[str], importer: Sequence[tuple[str, bool]]) -> bool:
    """Whether the name at `at` may stand in the list of a `from M import` whose M resolves to one of `modules`:
    walking up from it, every line holds only what such a list holds, up to an `import` whose `from` names M."""
    start = _line_start(data, at)
    prefix = data[start:at]
    if any(
        _LIST.fullmatch(prefix, m.end()) and _from_names(data, start + m.start(), modules, importer)
        for m in _IMPORT.finditer(prefix)
    ):
        return True
    if not _LIST.fullmatch(prefix):
        return False
    for _ in range(_LINES_UP):
        if start == 0:
            return False
        start, end = _line_above(data, start)
        line = data[start:end]
        if any(
            _LIST_LINE.fullmatch(line, m.end()) and _from_names(data, start + m.start(), modules, importer)
            for m in _IMPORT.finditer(line)
        ):
            return True
        if not _LIST_LINE.fullmatch(line):
            return False
    return True  # a list too long to walk: let it through


def _from_names(data: bytes, keyword: int, modules: set[str], importer: Sequence[tuple[str, bool]]) -> bool:
    """Whether the `import` at `keyword` closes a `from M` (on its line, or continued with `\\`) whose M, resolved
    for one of the importer's names, is one of `modules`."""
    start = _line_start(data, keyword)
    before = data[start:keyword]
    for _ in range(_LINES_UP):
        for found in reversed(list(_FROM.finditer(before))):
            spec = before[found.end() :]
            if _SPEC.fullmatch(spec):
                dotted = re.sub(rb"[ \t\f]", b"", spec)
                module = dotted.lstrip(b".")
                level = len(dotted) - len(module)
                text = module.decode("utf-8", "surrogateescape")
                if any(resolve_relative(name, package, level, text) in modules for name, package in importer):
                    return True
        if start == 0:
            return False
        above, end = _line_above(data, start)
        line = data[above:end]
        if not line.endswith(b"\\"):
            return False
        before, start = line[:-1] + before, above
    return True
