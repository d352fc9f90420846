"""Excerpts: a large file analysed through the top-level statements that can matter, the rest held aside.

libcst costs about 35 s and 600 bytes of memory per byte of source; a 4 MB module with one patch in it
would take minutes and gigabytes. Here CPython's parser (`ast`) reads the file in pieces of about 64 KB, cut
between top-level statements, and each statement is judged as the ast tier judges a whole file
(`screen.scan` / `Screen.hits`, names qualified through the bindings of the *whole* file). libcst then
parses an excerpt: the statements that can hold a finding, and whatever the analysis of those could read
elsewhere in the file, with every other run of statements replaced by a one- to three-line placeholder
statement (a *hole*). A fix edits the excerpt; the holes are put back byte for byte afterwards, so the
fixed file is the fixed excerpt with its placeholders replaced by the original statements.

What a kept statement's analysis may read elsewhere in the file, and how the excerpt keeps it the same:
- the import table (`names.ImportTable`: every import of the file, any scope, the last binding of a name
  wins): every top-level import is kept; for a name the kept code spells that a hidden statement imports,
  the file's last import of it is kept (so the last binding is the same), and every hidden import of it
  when hidden code never uses it (the fix's import clean-up would delete that import too);
- names bound in the ways the analysis records (functions and classes at any depth, `x = a.b` aliases,
  `x = call(...)`, module-level assignments): a hidden statement that binds a name the kept code spells is
  kept, and so is one that spells a name the kept code defines (a call of an installer, a use of a
  replacement function) or imports under a patch name (`from ... import _patched_x as copy_in`);
- names in the statements held aside (`screen.Detail`, gathered by the same walk): their uses of imported
  names count for the import clean-up (an import goes only when no use is left), and the names they spell
  and assign count for the rewrite of references (a native spelling must not collide with a name the file
  spells; a reference through a name the file also assigns is left alone);
- a run's cross-file decisions (`engine.Run.link`): an excerpt of a file that spells a name the run removes
  is built again with that name as a seed, so that its statements, and those using the names it is imported
  as, are in it before linking;
- the shape of the module (new imports go after the imports before the first definition; a test module
  left with nothing but helpers is deleted): a hole's placeholder holds one statement per kind of statement
  in the hole, as libcst sees it (a test, another function or class, an assignment, string or guard,
  anything else);
- libcst's ownership of comments after an indented block (the block's footer) and the module's default
  indentation: a placeholder for statements that end in an indented block ends in one too, indented as
  theirs is, and the one for the file's first indented block is indented as that block is.

Inside the statements kept, large displays of numbers are held out too (`numbers.py`): the excerpt is built
from the file with their placeholders, which are put back after the holes' statements.

The excerpt is used for files of `model.EXCERPT_ABOVE` bytes and more (`RunOptions.excerpt_above`), and for a
smaller file that holds such a display;
`tests/test_excerpts.py` runs every fixture, the examples, the installed torch sources and the real
releases through excerpts and through whole files and compares every finding and every fixed byte.
Anything unusual (a piece that CPython does not parse, a placeholder name already in the file, a tree too
deep, an encoding other than UTF-8, bytes libcst would not give back) gives no excerpt: the whole file is
parsed as before.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import functools
import re
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from fsdp_unpatch.analysis import numbers
from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.analysis.holes import HOLE, Excerpt, placeholder_for
from fsdp_unpatch.analysis.screen import Detail, Scan, Screen, scan
from fsdp_unpatch.analysis.statement_shape import DEFINITION_TYPES, block_facts, kind_of
from fsdp_unpatch.files.lines import line_starts
from fsdp_unpatch.project.bindings import assigned

_PIECE = 64 * 1024  # bytes CPython parses at a time
_CONTINUATION = re.compile(rb"(?:else|elif|except|finally)\b")
_WORD = re.compile(r"\w+")
# What libcst does not give back byte for byte (`source.round_trips`): a form feed at the start of a line, a
# line that ends in a lone carriage return.
_NOT_GIVEN_BACK = re.compile(rb"(?:^|[\r\n])\f|\r(?!\n)")


@dataclass(eq=False)
class _Part:
    """One or more top-level statements on whole lines of their own (statements sharing a line go together)."""

    first: int  # first line, 1-based, decorators and all
    last: int
    scan: Scan = field(default_factory=Scan)
    words: set[str] = field(default_factory=set)  # every identifier-like word of its text
    defines: set[str] = field(default_factory=set)  # functions and classes (any depth), module-level targets
    binds: set[str] = field(default_factory=set)  # `defines` and `x = a.b` / `x = call()` targets (any depth)
    imports: set[str] = field(default_factory=set)  # names its imports bind (any depth)
    imported: list[tuple[str, str]] = field(default_factory=list)  # (local name, what it imports)
    patch_imports: set[str] = field(default_factory=set)  # local names of imports that spell a seed word
    detail: Detail = field(default_factory=Detail)  # names used, spelled and assigned (`screen.Detail`)
    top_import: bool = False  # a top-level import statement (always kept)
    docstring: bool = False
    # The indentation of the indented block its last line is in, if it is in one (libcst: comments indented
    # below it belong to that block's footer).
    last_indent: Optional[bytes] = None
    block_indent: Optional[bytes] = None  # the indentation of its first indented block, if it has one
    kind: str = "quiet"  # what the module-shape rules see in it (`statement_shape.kind_of`)
    statements: list[ast.stmt] = field(default_factory=list)  # while its piece is read; then emptied
    kept: bool = False


def _may_start_statement(line: bytes) -> bool:
    """A line at column 0 that is neither blank, a comment, a closing bracket nor a clause of a statement above."""
    return bool(line) and line[:1] not in b" \t\f\r\n#)]}" and not _CONTINUATION.match(line)


def _pieces(
    data: bytes, starts: list[int], original: Optional[bytes] = None
) -> Iterator[Optional[tuple[int, int, ast.AST]]]:
    """The file as (first line index, end line index, syntax tree) pieces of whole top-level statements, one at a
    time (a whole file's tree is about 100 times its size); None, last, when a piece does not parse (a syntax
    error, or syntax newer than this Python: the whole file is parsed as before).

    `data` may hold displays of numbers out (`numbers.hold`; `original`: the file, if given): a piece in which
    a placeholder is not where the display was is None, or, given the file, parsed from the file's same lines."""
    original_starts = None if original is None else line_starts(original)
    count = len(starts) - 1
    candidates = [i for i in range(count) if _may_start_statement(data[starts[i] : starts[i] + 8])]
    candidates.append(count)
    offsets = [starts[i] for i in candidates]
    line, parsed = 0, 0
    while line < count:
        at = bisect.bisect_left(offsets, starts[line] + _PIECE)
        at = min(at, len(candidates) - 1)
        while True:
            end = candidates[at]
            chunk = data[starts[line] : starts[end]]
            parsed += len(chunk)
            if parsed > 4 * len(data) + _PIECE:
                yield None  # a long string with many lines at column 0: cutting costs more than it saves
                return
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = compile(chunk, "<piece>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
                if end == count:
                    yield None
                    return
                at += 1  # cut inside a string, a bracket or a statement: take the next cut
                continue
            break
        if numbers.PLACEHOLDER in chunk and not numbers.placed(tree, chunk):
            # a display of numbers held out was in a string or a comment: these lines are read as they are
            if original is None or original_starts is None:
                yield None
                return
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    own = original[original_starts[line] : original_starts[end]]
                    tree = compile(own, "<piece>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
                yield None
                return
        yield line, end, tree
        line = end


def statements(data: bytes) -> Iterator[tuple[int, ast.stmt]]:
    """(lines before it, statement) for each top-level statement of a file, read in pieces, so that no tree of
    the whole file is ever in memory; raises SyntaxError when a piece does not parse. Large displays of numbers
    are held out (`numbers.hold`): a statement holding one has a placeholder name in its place."""
    held = numbers.hold(data)
    text = data if held is None else held.text
    for found in _pieces(text, line_starts(text), None if held is None else data):
        if found is None:
            raise SyntaxError("a top-level statement does not parse")
        base, _, tree = found
        for statement in tree.body:  # type: ignore[attr-defined]
            yield base, statement


# The nodes `_note` reads (match patterns bind names too).
_NOTED = frozenset(
    {ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.Import, ast.ImportFrom, ast.Global}
    | {ast.Nonlocal, ast.ExceptHandler, ast.arg, ast.keyword}
    | {getattr(ast, name) for name in ("MatchAs", "MatchStar", "MatchMapping", "MatchClass") if hasattr(ast, name)}
)


def _note(part: _Part, node: ast.AST) -> None:
    """What `_Part` records of one node (called for the nodes of `_NOTED`): bindings, and the names libcst
    holds as `Name` nodes where CPython holds strings (a use for `collect.NameCounter` unless it labels)."""
    detail = part.detail
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        part.defines.add(node.name)
        part.binds.add(node.name)
        detail.names.add(node.name)
    elif isinstance(node, ast.Assign):
        if isinstance(node.value, (ast.Name, ast.Attribute, ast.Call)):
            part.binds.update(t.id for t in node.targets if isinstance(t, ast.Name))
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            part.imports.add(local)
            part.imported.append((local, f"{module}.{alias.name}"))
    elif isinstance(node, (ast.arg, ast.keyword)):  # parameters and keyword arguments label
        name = node.arg
        if name:
            detail.names.add(name)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        detail.uses.update(node.names)
        detail.names.update(node.names)
    elif isinstance(node, ast.ExceptHandler):
        if node.name:
            detail.uses[node.name] += 1
            detail.names.add(node.name)
            detail.stores.add(node.name)
    else:  # match patterns: a capture, `*rest`, `**rest`, a class pattern's keywords
        type_name = type(node).__name__
        found = [getattr(node, "name", None), getattr(node, "rest", None)]
        if type_name == "MatchClass":
            found = list(getattr(node, "kwd_attrs", []))
        for name in found:
            if isinstance(name, str):
                detail.uses[name] += 1
                detail.names.add(name)


def _parts(data: bytes, encoding: str, module_name: str, is_package: bool) -> Optional[tuple[list[_Part], list[int]]]:
    starts = line_starts(data)
    parts: list[_Part] = []
    for piece_found in _pieces(data, starts):
        if piece_found is None:
            return None
        base, end, tree = piece_found
        piece = data[starts[base] : starts[end]]
        lines: list[int] = []  # the piece's line offsets, shared by the walks of its statements
        new = len(parts)
        for statement in tree.body:  # type: ignore[attr-defined]
            decorators = getattr(statement, "decorator_list", [])
            first = base + min([statement.lineno] + [d.lineno for d in decorators])
            last = base + (statement.end_lineno or statement.lineno)
            if parts and parts[-1].last >= first:  # `a = 1; b = 2`: one part, one line of the module
                part = parts[-1]
                part.last = max(part.last, last)
                part.statements.append(statement)
                # several statements on a line are no docstring: quiet only when each assigns or imports
                part.kind = "quiet" if all(isinstance(s, DEFINITION_TYPES) for s in part.statements) else "other"
            else:
                source = data[starts[first - 1] : starts[last]]
                part = _Part(first, last, kind=kind_of(statement, source), statements=[statement])
                parts.append(part)
            scan(
                statement,
                piece,
                module_name,
                is_package,
                part.scan,
                part.detail,
                (_NOTED, functools.partial(_note, part)),
                lines,
            )
            part.defines |= assigned([statement])
            part.binds |= part.defines
            part.top_import = isinstance(statement, (ast.Import, ast.ImportFrom))
            part.docstring = not parts[:-1] and (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            )
            part.last_indent, indent = block_facts(statement, data, starts, base)
            part.block_indent = part.block_indent or indent
        for part in parts[new:]:
            part.statements = []  # the piece's tree goes now
    for part in parts:
        text = data[starts[part.first - 1] : starts[part.last]].decode(encoding, "replace")
        part.words = set(_WORD.findall(text))
    return parts, starts


_LAST: list[tuple[tuple, Optional[Excerpt]]] = []  # the last excerpts built (a run builds each twice)


def build(
    data: bytes,
    encoding: str,
    module_name: str,
    is_package: bool,
    screen: Screen,
    seeds: Iterable[str] = (),
) -> Optional[Excerpt]:
    """The excerpt of a file for the analysis; None when the whole file must be parsed instead.

    `seeds`: names whose statements must be in it (names the run removes, spelled in this file).
    """
    key = (data, encoding, module_name, is_package, frozenset(seeds), id(screen))
    for known, built in _LAST:
        if known == key:
            return built
    with no_cyclic_gc():
        built = _build(data, encoding, module_name, is_package, screen, seeds)
    _LAST[:] = [*_LAST[-1:], (key, built)]
    return built


def _build(
    data: bytes,
    encoding: str,
    module_name: str,
    is_package: bool,
    screen: Screen,
    seeds: Iterable[str] = (),
) -> Optional[Excerpt]:
    if HOLE in data or encoding not in ("utf-8", "utf-8-sig"):
        return None  # other encodings are declared on the first two lines, which a hole could take
    if _NOT_GIVEN_BACK.search(data):
        return None  # libcst would not give the file back byte for byte: the whole file's fix is refused
    held = numbers.hold(data)
    if held is not None:
        built = _built(held.text, encoding, module_name, is_package, screen, seeds)
        if built is not None:
            built.literals = [(placeholder, original) for placeholder, original, _ in held.literals]
            built.shifts = _shifts(built.text, built.literals)
            return built
    return _built(data, encoding, module_name, is_package, screen, seeds)


def _built(
    data: bytes, encoding: str, module_name: str, is_package: bool, screen: Screen, seeds: Iterable[str]
) -> Optional[Excerpt]:
    found = _parts(data, encoding, module_name, is_package)
    if found is None:
        return None
    parts, starts = found
    if any(part.scan.too_deep for part in parts):
        return None
    merged = Scan()
    for part in parts:
        for name, values in part.scan.bindings.items():
            merged.bindings.setdefault(name, set()).update(values)
        merged.aliases += part.scan.aliases
    bindings = screen.resolve_aliases(merged.bindings, merged.aliases)
    if bindings is None:
        return None
    native = any(module_name.startswith(root + ".") for root in screen.roots)
    kernels_count = screen.spells_namespace(data) and not native
    words = {*screen.patch_names, *(s.encode() for s in seeds)}
    seeded = False
    for part in parts:
        text = data[starts[part.first - 1] : starts[part.last]]
        # `import ..._patched_x as copy_in`: a statement that spells `copy_in` names a patch part as well
        part.patch_imports = {local for local, name in part.imported if any(w in name.encode() for w in words)}
        if (
            any(word in text for word in words)
            or any(word in text.lower() for word in screen.comment_words)
            or b"__all__" in text
            or screen.hits(part.scan, bindings, kernels_count)
        ):
            part.kept = seeded = True
        elif part.top_import or part.docstring:
            part.kept = True
    if data.startswith(codecs.BOM_UTF8):
        parts[0].kept = True  # the byte order mark stays at the start of what libcst reads
    _close(parts)
    return _assemble(data, starts, parts, seeded)


def _shifts(text: bytes, literals: list[tuple[bytes, bytes]]) -> dict[int, list[tuple[int, int]]]:
    """`Excerpt.shifts` for the literals' placeholders in the excerpt's text (not those in a hole's statements)."""
    shifts: dict[int, list[tuple[int, int]]] = {}
    for placeholder, original in literals:
        at = text.find(placeholder)
        if at < 0:
            continue
        end = at + len(placeholder)
        line = text.count(b"\n", 0, end) + 1
        start = text.rfind(b"\n", 0, end) + 1
        column = len(text[start:end].decode("utf-8", "replace").lstrip("\ufeff"))  # libcst: no column for a BOM
        shifts.setdefault(line, []).append((column, numbers.end_shift(placeholder, original)))
    return shifts


def _close(parts: list[_Part]) -> None:
    """Keep every hidden statement the kept ones could read (see the module doc), to a fixpoint.

    Linear in the words of the file: each newly kept statement's words, definitions and uses are looked up in
    indexes of the hidden statements, and the uses left in hidden code are counted down as statements are
    kept (a chain of statements each reached from the one before would otherwise cost a pass per link).
    """
    last_import: dict[str, _Part] = {}
    spelling: dict[str, list[_Part]] = {}  # word -> hidden statements that spell it
    binding: dict[str, list[_Part]] = {}  # name -> hidden statements that bind it (not by import)
    importing: dict[str, list[_Part]] = {}  # name -> hidden statements that import it
    hidden_uses: Counter = Counter()
    for part in parts:
        for name in part.imports:
            last_import[name] = part
        if part.kept:
            continue
        hidden_uses.update(part.detail.uses)
        for word in part.words:
            spelling.setdefault(word, []).append(part)
        for name in part.binds:
            binding.setdefault(name, []).append(part)
        for name in part.imports:
            importing.setdefault(name, []).append(part)
    spelled: set[str] = set()
    defined: set[str] = set()
    queue = [part for part in parts if part.kept]

    def keep(part: _Part) -> None:
        pending = [part]
        while pending:
            other = pending.pop()
            if other.kept:
                continue
            other.kept = True
            queue.append(other)
            for name, count in other.detail.uses.items():
                hidden_uses[name] -= count
                if hidden_uses[name] == 0 and name in spelled:
                    pending += importing.get(name, ())

    while queue:
        part = queue.pop()
        new_words, new_names = part.words - spelled, (part.defines | part.patch_imports) - defined
        spelled |= new_words
        defined |= new_names
        reached = [p for name in new_names for p in spelling.get(name, ())]
        reached += [p for word in new_words for p in binding.get(word, ())]
        reached += [last_import[word] for word in new_words if word in last_import]
        # a hidden import of a spelled name that no hidden code uses: the import clean-up deletes it too
        unused = [word for word in new_words if hidden_uses[word] == 0]
        for other in reached + [p for word in unused for p in importing.get(word, ())]:
            keep(other)


def _assemble(data: bytes, starts: list[int], parts: list[_Part], seeded: bool) -> Excerpt:
    first_indent = next((p for p in parts if p.block_indent is not None), None)
    indent = first_indent.block_indent if first_indent is not None and first_indent.block_indent else b"    "
    out: list[bytes] = []
    holes: list[tuple[bytes, bytes]] = []
    anchors: list[tuple[int, int]] = []
    hidden = Detail()
    excerpt_line, file_line = 1, 1  # next line of each
    runs: list[list[_Part]] = []  # runs of hidden statements with no kept one between
    after_hidden = False
    for part in parts:
        if not part.kept:
            if after_hidden:
                runs[-1].append(part)
            else:
                runs.append([part])
        after_hidden = not part.kept
    for run in runs:
        first, last = run[0].first, run[-1].last
        if first > file_line:  # kept lines before the hole
            anchors.append((excerpt_line, file_line))
            out.append(data[starts[file_line - 1] : starts[first - 1]])
            excerpt_line += first - file_line
        original = data[starts[first - 1] : starts[last]]
        line_end = data[starts[first - 1] : starts[first]]
        newline = b"\r\n" if line_end.endswith(b"\r\n") else line_end[-1:] if line_end[-1:] in (b"\n", b"\r") else b"\n"
        holds_first_block = first_indent if any(part is first_indent for part in run) else None
        placeholder = placeholder_for(len(holes), run, newline, indent, holds_first_block)
        if not original.endswith((b"\n", b"\r")):  # the file's last line has no line ending: nor has this
            placeholder = placeholder[: -len(newline)]
        anchors.append((excerpt_line, first))
        out.append(placeholder)
        holes.append((placeholder, original))
        for part in run:
            hidden.uses.update(part.detail.uses)
            hidden.names |= part.detail.names
            hidden.stores |= part.detail.stores
            hidden.chains |= part.detail.chains
        excerpt_line += placeholder.count(newline) + (0 if placeholder.endswith(newline) else 1)
        file_line = last + 1
    anchors.append((excerpt_line, file_line))
    out.append(data[starts[file_line - 1] :])
    hole_lines = [run[0].first for run in runs]
    return Excerpt(b"".join(out), holes, hole_lines, hidden, anchors, len(starts) - 1, seeded)
