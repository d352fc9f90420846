"""Path names and messages made safe for line-based output (README, Output formats: "Hostile names").

A folder may be named `x\\n+++ b`: printed raw, such a name starts a new line, and a diff or a log parser
reads the rest as its own. Names with a control character are quoted the way git quotes them (`"a/x\\nb.py"`,
C-style escapes), so one finding or one diff header stays one line, and `git apply` reads the same name back.
"""

from __future__ import annotations

from fsdp_unpatch.lazy_re import LazyPattern

# C0 controls, DEL and the C1 controls (an ESC in a name could drive the terminal). A name with none of them
# is shown as it is, backslashes included (non-UTF-8 names are already shown with `\xNN` escapes).
_NEEDS_QUOTES = LazyPattern(r"[\x00-\x1f\x7f-\x9f]")
_QUOTED = LazyPattern(r'[\x00-\x1f\x7f-\x9f"\\]')  # inside the quotes `"` and `\` are escaped as well
_NEEDS_QUOTES_BYTES = LazyPattern(rb'[\x00-\x1f\x7f"\\]')
_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
_NAMED.update({'"': '\\"', "\\": "\\\\"})


def _escape(character: str) -> str:
    return _NAMED.get(character) or f"\\{ord(character):03o}"


def quoted_path(path: str) -> str:
    """`path` as is unless it holds a control character; then in double quotes with C-style escapes, as git
    quotes names."""
    if not _NEEDS_QUOTES.search(path):
        return path
    return '"' + _QUOTED.sub(lambda m: _escape(m.group()), path) + '"'


def git_quoted(name: bytes) -> bytes:
    """A diff header's name (`a/...`, `b/...`) as git writes it: quoted when it holds a control character,
    `"` or `\\`; other bytes (UTF-8, latin-1...) are kept, as `git apply` reads them."""
    if not _NEEDS_QUOTES_BYTES.search(name):
        return name
    escaped = _NEEDS_QUOTES_BYTES.sub(lambda m: _escape(m.group().decode("latin-1")).encode("ascii"), name)
    return b'"' + escaped + b'"'


def printable(text: str) -> str:
    """A message on one line: control characters become escapes (`\\n`, `\\033`), nothing else changes."""
    return _NEEDS_QUOTES.sub(lambda m: _escape(m.group()), text)


# What XML 1.0 forbids in a document: C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF
_NOT_XML = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """`text` with every character XML 1.0 forbids written as an escape (`\\033`): a JUnit report stays
    valid XML whatever a path or a message holds."""
    return _NOT_XML.sub(lambda m: _NAMED.get(m.group()) or f"\\{ord(m.group()):03o}", text)
