"""Which files are worth parsing: two cheap tests on the raw bytes, compiled from what the rules declare.

Parsing is what costs (libcst takes ~1 s per MB and ~580x the source in memory), so a file is parsed
only when it could hold a finding: when it holds a shape that makes it a candidate for a registered rule
(`registry.Candidate`; the union of the rules' `candidates=`). Each shape compiles into the tokens of stage 1
and the tests of stage 2 below, its names read from the catalog (the FSDP2 shapes, the patch parts) or from
the declaration (`word(...)`, `call(...)`); a shape no rule declares is not looked for. Both stages
over-approximate; they never reject a file that holds a declared shape:

1. **tokens** — a byte search (on the lower-cased text) for the names every declared shape goes through: an
   FSDP2 shape reaches its target through a dotted path that the file spells (`..._fully_shard._fsdp_collectives`,
   `torch.ops.fsdp`), so the last segment of each FSDP2 root, the target modules, the op namespaces and
   op names are enough, with the catalog's own `tokens`; the names of the known patch parts (patch modules,
   installers, replacement functions) for `patch-part`, the rule code prefix for `suppression`, and the
   names of the declared words and calls. A file inside an FSDP2 or patch package is kept when it may
   install (`fsdp2-store`, `fsdp2-patch`): relative imports reach the targets without spelling them.
2. **shape** — a regular-expression test that the file could hold a declared shape: an install site (an
   assignment, `setattr`, `mock.patch`, `patch.object` whose owner is a name bound by an import or alias that
   mentions FSDP2, or a dotted chain that spells it: one test for `fsdp2-store` and `fsdp2-patch`, which the
   bytes do not tell apart cheaply), a `sys.modules` entry under `torch.distributed`, a class
   named like an FSDP2 class or deriving from one, a kernel registration or op definition for an FSDP op, a
   reference to a known patch part, a same-device `_foreach_copy_` special case, a suppression comment for
   this tool's codes, a declared word or a call of a declared callee (`fully_shard(`); and, for `unparsable`,
   a file that names FSDP2 but does not parse.

`tests/test_prefilter.py` proves soundness on every fixture that yields a finding. Cross-file work (calls of
an installer removed elsewhere, references to a removed replacement) is driven by explicit names: `mentions`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.lazy_re import LazyPattern

# Separators inside a dotted chain the parser accepts: spaces, newlines in brackets, backslash continuations.
_DOT = rb"[ \t\\\r\n]*\.[ \t\\\r\n]*"
_STRING_PREFIX = rb"[rRbBuUfF]{0,2}"


def _minimal(tokens: Iterable[str]) -> tuple[bytes, ...]:
    """Lower-cased tokens without those that contain another one (a file with the longer has the shorter)."""
    lowered = sorted({t.lower() for t in tokens if t}, key=len)
    kept: list[str] = []
    for token in lowered:
        if not any(shorter in token for shorter in kept):
            kept.append(token)
    return tuple(t.encode() for t in kept)


@dataclass(frozen=True)
class Vocabulary:
    """The names the prefilter looks for, all read from the catalog."""

    roots: frozenset[str]  # last segments of the FSDP2 package roots (`_fully_shard`, `fsdp`)
    packages: tuple[str, ...]  # the FSDP2 roots, family modules and op namespaces as dotted paths (`torch.ops.fsdp`)
    classes: frozenset[str]  # FSDP2 classes the catalog names (`FSDPParamGroup`)
    root_paths: tuple[tuple[str, ...], ...]  # folder chains of FSDP2 roots and patch packages
    modules: frozenset[str]  # target modules (`_fsdp_collectives`) and op namespaces (`fsdp`)
    op_namespaces: frozenset[str]
    op_names: frozenset[str]
    patch_names: frozenset[str]  # patch module segments, installers, replacement functions
    rule_prefix: str
    extra: tuple[str, ...]  # the catalog's own `tokens` (`_foreach_copy_`, spellings of FSDP)
    # What the registered rules declare makes a file their candidate (`Rule.candidates`): the shapes the
    # catalog spells out (`fsdp2-store`, ...), and the words and callees the rules spell themselves.
    shapes: frozenset[str]
    words: frozenset[str]
    calls: frozenset[str]

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> Vocabulary:
        modules, namespaces, ops = set(), set(), set()
        for target in catalog.targets:
            parts = target.split(".")
            if parts[0] == "ops" and len(parts) >= 3:
                namespaces.add(parts[1])
                ops.add(parts[2])
            else:
                modules.add(parts[0])
        patch_names: set[str] = set()
        root_paths = [tuple(root.split(".")) for root in catalog.fsdp2_roots]
        for name, module in catalog.patch_modules.items():
            patch_names.update(p for p in name.split(".")[1:] if p.startswith("_"))
            patch_names.update(module.installers)
            patch_names.update(module.enhance_installers)
            patch_names.update(module.replacements)
            root_paths.append(tuple(name.split(".")[:-1]))
        codes = sorted(catalog.rules)
        prefix = codes[0] if codes else ""
        for code in codes:
            while not code.startswith(prefix):
                prefix = prefix[:-1]
        prefix = prefix.rstrip("0123456789")  # `FSU`: what the suppression test follows with a digit
        # each a `registry.Candidate` (read by attribute: the registry is a layer above this one)
        declared = {candidate for rule in catalog.rules.values() for candidate in rule.candidates}
        return cls(
            roots=frozenset(root.rsplit(".", 1)[-1] for root in catalog.fsdp2_roots),
            packages=tuple(catalog.fsdp2_roots)
            + tuple(catalog.family_modules.values())
            + tuple(f"torch.ops.{n}" for n in sorted(namespaces)),
            classes=frozenset(catalog.classes),
            root_paths=tuple(root_paths),
            modules=frozenset(modules | namespaces),
            op_namespaces=frozenset(namespaces),
            op_names=frozenset(ops),
            patch_names=frozenset(patch_names),
            rule_prefix=prefix,
            extra=tuple(catalog.tokens),
            shapes=frozenset(c.shape for c in declared if c.shape not in ("word", "call")),
            words=frozenset(c.name for c in declared if c.shape == "word"),
            calls=frozenset(c.name for c in declared if c.shape == "call"),
        )

    def declares(self, *shapes: str) -> bool:
        """Whether a registered rule declares one of these shapes."""
        return any(shape in self.shapes for shape in shapes)

    def fsdp2_shapes(self) -> bool:
        """Whether a registered rule declares a shape that reaches FSDP2 through the names the file spells."""
        return self.declares(*FSDP2_SHAPES)

    def tokens(self) -> tuple[bytes, ...]:
        """Stage 1: at least one of these (lower-cased) is in every file that holds a declared shape."""
        found: list[str] = [*self.words, *self.calls]
        if self.fsdp2_shapes():
            found += [*self.roots, *self.modules, *self.op_names, *self.extra]
        if self.declares("patch-part"):
            found += self.patch_names
        if self.declares("suppression"):
            found += [self.rule_prefix, "fsdp-unpatch"]
        return _minimal(found)


# The shapes found through the FSDP2 names a file spells (stage 1's FSDP2 tokens); `unparsable` is looked
# for in a file that spells one.
FSDP2_SHAPES = (
    "fsdp2-store",
    "fsdp2-patch",
    "kernel-registration",
    "op-definition",
    "fsdp2-class",
    "fsdp2-subclass",
    "module-entry",
    "same-device-copy",
    "unparsable",
)

_WORD = LazyPattern(rb"\w+")
_WORD_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_GAP = b" \t\\\r\n"
_ASSIGNED = LazyPattern(rb"[ \t]*(\w+)[ \t]*=(?!=)")
_VALUE = LazyPattern(rb"[ \t\\\r\n(]*(\w+(?:" + _DOT + rb"\w+)*)")


def _word_at(data: bytes, start: int, end: int) -> bytes:
    """The whole identifier around data[start:end]."""
    while start > 0 and data[start - 1] in _WORD_CHARS:
        start -= 1
    while end < len(data) and data[end] in _WORD_CHARS:
        end += 1
    return data[start:end]


def _after_dot(data: bytes, start: int) -> bool:
    """Whether data[start] is preceded by `.` (across spaces and continuations): `a.b` rather than `b`."""
    position = start - 1
    while position >= 0 and data[position] in _GAP:
        position -= 1
    return position >= 0 and data[position] == ord(".")


_OWNER_CALL = LazyPattern(rb"(?:setattr|object|vars)[ \t]*\([\w. \t\\\r\n]*\Z")


_QUERY_CALL = LazyPattern(rb"(?:hasattr|getattr)[ \t]*\([ \t\\\r\n]*\Z")


def _chain_start(data: bytes, start: int) -> int:
    """Where the dotted chain holding data[start] begins (`torch.ops.fsdp`: at `torch`)."""
    while start > 0 and (data[start - 1] in _WORD_CHARS or data[start - 1] == ord(".")):
        start -= 1
    return start


def _call_argument(data: bytes, start: int) -> bool:
    """Whether data[start] is in the first argument of `setattr(` or `patch.object(` (a dotted chain)."""
    return _OWNER_CALL.search(data[max(0, start - 300) : start]) is not None


def _alias_at(data: bytes, start: int) -> Optional[tuple[bytes, bytes]]:
    """(X, dotted value) when the statement holding data[start] is `X = a.b.c` (over continuation lines)."""
    line = data.rfind(b"\n", 0, start) + 1
    for _ in range(4):
        match = _ASSIGNED.match(data, line, start)
        if match is not None:
            value = _VALUE.match(data, match.end())
            if value is None:
                return None
            return match.group(1), re.sub(rb"[ \t\\\r\n]", b"", value.group(1))
        if line == 0:
            return None
        previous = data.rfind(b"\n", 0, line - 1) + 1
        tail = data[previous:line].rstrip()
        if not tail.endswith((b"(", b"\\", b",")):
            return None
        line = previous
    return None


_SPACE = b" \t\n\r\x0b\x0c"  # `\s` of a bytes pattern
_PREFIX_LETTERS = b"rRbBuUfF"
# `import_module`: a module looked up at run time, then patched (`import_module("torch....").x = f`)
_STRING_CALLEES = (b"patch", b"setattr", b"object", b"multiple", b"dict", b"import_module")
_REGISTRATION_CALLEES = (b"impl", b"register_kernel", b"register_fake", b"register_autograd")


def _callee_before(data: bytes, paren: int, callees: tuple[bytes, ...]) -> bool:
    """Whether `data[paren]` is `(` and one of `callees` ends right before it (spaces allowed between)."""
    if paren < 0 or data[paren] != ord("("):
        return False
    end = paren
    while end > 0 and data[end - 1] in _SPACE:
        end -= 1
    return any(data.endswith(callee, 0, end) for callee in callees)


_OP_TAIL = LazyPattern(rb"(?:\.\w+)?[\"']")  # after a quoted op: an overload, then the closing quote


def opens_call(data: bytes, at: int) -> bool:
    r"""Whether a call's bracket follows `data[at:]` past spaces, line breaks, backslashes and comments (a
    bracket inside a comment counts: a superset): what `(?:[ \t\\\r\n]|#[^\r\n]*)*\(` matches, in one pass
    (that pattern backtracks exponentially on a line of `#`s)."""
    end = len(data)
    while at < end:
        byte = data[at]
        if byte == 40:  # "("
            return True
        if byte == 35:  # "#": the comment runs to the line's end
            line_end = data.find(b"\n", at)
            line_end = end if line_end < 0 else line_end
            carriage = data.find(b"\r", at, line_end)
            line_end = line_end if carriage < 0 else carriage
            if data.find(b"(", at, line_end) >= 0:
                return True
            at = line_end
        elif byte in _CALL_GAP:
            at += 1
        else:
            return False
    return False


_CALL_GAP = frozenset(b" \t\\\r\n")


class _RegisteredOp:
    """`search(data)`: a registration call with the op as a string, like the regular expression
    `(?:impl|register_kernel|register_fake|register_autograd)\\s*\\([^()]{0,300}?["']OP(?:\\.\\w+)?["']`.
    That expression starts with no literal, so `re` tries it at every byte (0.15 s per op on the torch
    sources); this finds the quoted op first and looks back from it, with the same result."""

    def __init__(self, op: bytes) -> None:
        self.op = op
        self._tail = _OP_TAIL

    def search(self, data: bytes) -> bool:
        position = data.find(self.op)
        while position >= 0:
            quote = position - 1
            if quote >= 0 and data[quote] in b"\"'" and self._tail.match(data, position + len(self.op)):
                # `[^()]{0,300}`: the last bracket before the quote is the call's `(`, at most 300 bytes before it
                window = max(0, quote - 301)
                paren = max(data.rfind(b"(", window, quote), data.rfind(b")", window, quote))
                if _callee_before(data, paren, _REGISTRATION_CALLEES):
                    return True
            position = data.find(self.op, position + 1)
        return False


class _CallOf:
    """`search(data)`: a call of a callee spelled with the last name `name` (`name(`, `x.name (`, with spaces,
    line breaks, backslash continuations or a comment before the bracket), found from the name (a literal the
    search skips ahead to) and checked around it: no identifier character before it, an opening bracket
    after it. A superset of the ast screen's test (`screen.Scan.called`): the name followed by a bracket in a
    string or a comment is kept too."""

    def __init__(self, name: bytes) -> None:
        self.name = name

    def search(self, data: bytes) -> bool:
        position = data.find(self.name)
        while position >= 0:
            end = position + len(self.name)
            if (position == 0 or data[position - 1] not in _WORD_CHARS) and opens_call(data, end):
                return True
            position = data.find(self.name, position + 1)
        return False


def _in_string_call(data: bytes, start: int) -> bool:
    """Whether data[start] lies in a one-line string literal that is the first argument of `patch(`, `setattr(`,
    `object(`, `multiple(`, `dict(` or `import_module(` (with a string prefix and spaces allowed):
    `mock.patch("torch....")`."""
    line = data.rfind(b"\n", 0, start) + 1
    quote = max(data.rfind(b'"', line, start), data.rfind(b"'", line, start))
    if quote < 0:
        return False
    for letters in range(3):  # `[rRbBuUfF]{0,2}` before the quote
        before = quote - letters
        if before < 0 or any(c not in _PREFIX_LETTERS for c in data[before:quote]):
            break
        end = before
        while end > 0 and data[end - 1] in _SPACE:
            end -= 1
        if _callee_before(data, end - 1, _STRING_CALLEES):
            return True
    return False


class Prefilter:
    """`worth_parsing(data, path)`: the two stages for one catalog, compiled once.

    Every regular expression starts with a literal, so that `re` can skip ahead quickly; word boundaries
    and line starts are checked in Python at the (few) places a literal matched.
    """

    def __init__(self, catalog: Catalog) -> None:
        words = Vocabulary.from_catalog(catalog)
        self.vocabulary = words
        self.tokens = words.tokens()
        # what the shapes below look for, compiled only for the shapes some registered rule declares
        self.installs = words.declares("fsdp2-store", "fsdp2-patch")
        self.unparsable = words.declares("unparsable")
        self.folders = tuple("/" + "/".join(chain) + "/" for chain in words.root_paths) if self.installs else ()
        self.classes = frozenset(c.encode() for c in words.classes)
        self.mention_words = frozenset(w.encode() for w in words.roots | words.modules)
        # the shortest literals every mention contains (`fsdp`, `_fully_shard`); whole words are checked after
        self._mention_anchors = [LazyPattern(re.escape(a)) for a in _minimal_exact(self.mention_words)]
        self._store_tail = LazyPattern(rb"(?:" + _DOT + rb"\w+)+[ \t\\\r\n)]*(?:,[^=\n]*)?=(?!=)")
        # an owner handed over with an attribute name (`(FSDPParamGroup, "x", f)` rows, `@install_over(C, "x")`)
        # or stored into through its namespace (`C.__dict__["x"] = f`): `indirect_installs.py`
        through_dict, with_name = _DOT + rb"__dict__[ \t]*\[", rb",[ \t\\\r\n]*" + _STRING_PREFIX + rb"[\"']"
        self._owner_tail = LazyPattern(rb"(?:" + _DOT + rb"\w+)*[ \t]*(?:" + through_dict + rb"|" + with_name + rb")")
        # `getattr(C, "FSDPParamGroup").x = f`: a `getattr` (or `hasattr`) alone only reads
        self._getattr_store = LazyPattern(
            rb"(?:" + _DOT + rb"\w+)*[ \t]*" + with_name + rb"\w+[\"'][ \t]*\)(?:" + _DOT + rb"\w+)+[ \t]*=(?!=)"
        )
        self._from_import = LazyPattern(rb"from[ \t]+([.\w]+)[ \t\\]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\r?\n)*)")
        self._import = LazyPattern(rb"import[ \t]+((?:[^\n\\;#]|\\\r?\n)*)")
        # (literal that must be present, then the exact test) for the tests that need no name binding
        # (compiled at their first use: most runs, and most files, need few of them)
        direct: list[tuple[tuple[bytes, ...], Optional[LazyPattern[bytes] | _RegisteredOp | _CallOf]]] = []
        if words.declares("kernel-registration", "op-definition"):
            for namespace in sorted(words.op_namespaces):
                direct.append(
                    (
                        (b"Library",),
                        LazyPattern(
                            rb"Library\s*\(\s*(?:ns\s*=\s*)?"
                            + _STRING_PREFIX
                            + rb"[\"']"
                            + re.escape(namespace.encode())
                            + rb"[\"']"
                        ),
                    )
                )
                direct.append(((namespace.encode() + b"::",), None))
        if words.declares("kernel-registration"):
            for op in sorted(words.op_names):
                direct.append(
                    (
                        (op.encode(),),
                        _RegisteredOp(op.encode()),
                    )
                )
        direct += [((word.encode(),), None) for word in sorted(words.words)]  # present: a candidate
        direct += [((name.encode(),), _CallOf(name.encode())) for name in sorted(words.calls)]
        if words.declares("patch-part"):
            for name in sorted(words.patch_names):
                direct.append(((name.encode(),), LazyPattern(re.escape(name.encode()) + rb"\b")))
        if words.declares("suppression"):
            if words.rule_prefix:
                prefix = words.rule_prefix.encode()
                direct.append(((prefix,), LazyPattern(re.escape(prefix) + rb"\d")))
            direct.append(((b"fsdp-unpatch",), LazyPattern(rb"fsdp-unpatch\s*:")))
        # a class named like an FSDP2 class (FSU203) or deriving from one (FSU106); `class` alone is everywhere
        named, deriving = words.declares("fsdp2-class"), words.declares("fsdp2-subclass")
        for name in sorted(words.classes) if named or deriving else ():
            spelled = re.escape(name.encode())
            alternatives = [spelled + rb"\b"] if named else []
            alternatives += [rb"\w+[ \t]*\([^)]*\b" + spelled + rb"\b"] if deriving else []
            pattern = rb"\bclass[ \t]+(?:" + b"|".join(alternatives) + rb")"
            direct.append(((name.encode(), b"class"), LazyPattern(pattern)))
        # a `sys.modules` entry under torch.distributed replaced: `sys.modules["torch...."] = m`,
        # `monkeypatch.setitem(sys.modules, "torch....", m)`, `mock.patch.dict(sys.modules, {"torch....": m})`
        if words.declares("module-entry"):
            direct.append(
                (
                    (b"modules", b"torch.distributed."),
                    LazyPattern(rb"modules[\"']?\s*(?:\[|,\s*\{?)[^()\[\]]{0,300}?[\"']torch\.distributed\."),
                )
            )
        if words.declares("same-device-copy"):
            first_device = rb"\[\s*0\s*\]" + _DOT + rb"device\b"
            direct.append(
                (
                    (b"_foreach_copy_", b"device"),
                    LazyPattern(  # `if dst[0].device == src[0].device:`
                        first_device + rb"[ \t\\\r\n)]*[=!]=[\s\S]{0,300}?" + first_device
                    ),
                )
            )
        self._direct = direct

    # stage 1 ----------------------------------------------------------------------------------------
    def in_package(self, path: str) -> bool:
        """Inside an FSDP2 or patch package: relative imports reach targets without naming them."""
        normalized = os.path.abspath(path).replace(os.sep, "/") + "/"
        return any(folder in normalized for folder in self.folders)

    def has_token(self, data: bytes) -> bool:
        lowered = data.lower()
        return any(token in lowered for token in self.tokens)

    # stage 2 ----------------------------------------------------------------------------------------
    def could_hold_finding(self, data: bytes) -> bool:
        for literals, pattern in self._direct:
            if all(literal in data for literal in literals) and (pattern is None or pattern.search(data)):
                return True  # a kernel registration, a patch part's name, a suppression, a same-device copy
        if not self.installs:
            return False  # what follows looks for install sites
        spots = self.mentions_of_fsdp2(data)
        if not spots:
            return False
        if any(_in_string_call(data, start) for start, _ in spots):
            return True  # mock.patch("torch.distributed.fsdp._fully_shard...")
        for start, end in spots:
            if _after_dot(data, start) and self._store_tail.match(data, end):
                return True  # torch.distributed.fsdp._fully_shard._fsdp_collectives.x = f
            if _call_argument(data, start):
                return True  # setattr(fsdp._fully_shard._fsdp_collectives, "x", f)
            if self._hands_over(data, _chain_start(data, start), end):
                return True  # vars(fsdp._fully_shard._fsdp_collectives)["x"] = f, rows of (owner, "x", f)
        bound = self.imported_names(data)
        for start, _ in spots:  # `C = torch.distributed.fsdp._fully_shard._fsdp_collectives`
            alias = _alias_at(data, start)
            if alias is not None and self.reaches_fsdp2(alias[1]):
                bound.add(alias[0])
        checked: set[bytes] = set()
        while bound - checked:
            heads = bound - checked
            checked |= heads
            found = self._uses(data, heads)
            if found is True:
                return True
            bound |= found  # aliases of aliases: `C = fsdp_module; orig = C.foreach_reduce`
        return False

    def mentions_of_fsdp2(self, data: bytes) -> list[tuple[int, int]]:
        """Where the file names an FSDP2 root, a target module or an op namespace, as a whole word."""
        spots = []
        for anchor in self._mention_anchors:
            for match in anchor.finditer(data):
                word = _word_at(data, match.start(), match.end())
                if word in self.mention_words:
                    start = data.rfind(word, 0, match.end())
                    spots.append((start, start + len(word)))
        return spots

    def imported_names(self, data: bytes) -> set[bytes]:
        """Names an import binds to something that mentions FSDP2 (`from ..._fully_shard import X as Y` -> Y)."""
        bound: set[bytes] = set()
        for match in self._from_import.finditer(data):
            module, names = match.group(1), match.group(2)
            relative = module.startswith(b".")
            if relative and not (_has_mention(module, self.mention_words) or _has_mention(names, self.mention_words)):
                continue  # outside the FSDP2 packages a relative import reaches them only by naming them
            for item in re.split(rb"[,()\\\n]", names):
                parts = item.split(b"#")[0].split()
                if not parts or parts[0] == b"*":
                    continue
                if relative or self.reaches_fsdp2(module + b"." + parts[0]) or parts[0] in self.classes:
                    bound.add(parts[-1])
        for match in self._import.finditer(data):
            for item in match.group(1).replace(b"\\", b" ").split(b","):
                parts = item.split()
                if len(parts) == 3 and parts[1] == b"as" and self.reaches_fsdp2(parts[0]):
                    bound.add(parts[2])
        return {n for n in bound if _WORD.fullmatch(n)}

    def _uses(self, data: bytes, heads: set[bytes]):
        """True when a head is stored into (`H.x = `, `setattr(H, `, `patch.object(H, `); else the names it aliases."""
        aliases: set[bytes] = set()
        pattern = re.compile(b"|".join(re.escape(h) for h in sorted(heads, key=len, reverse=True)))
        for match in pattern.finditer(data):
            start, end = match.span()
            if (start > 0 and (data[start - 1] in _WORD_CHARS or data[start - 1] == ord("."))) or (
                end < len(data) and data[end] in _WORD_CHARS
            ):
                continue
            if self._store_tail.match(data, end) or self._hands_over(data, start, end):
                return True
            before = data[max(0, start - 40) : start].rstrip(_GAP)
            if before.endswith(b"(") and before[:-1].rstrip(_GAP).endswith((b"setattr", b"object", b"vars")):
                return True
            alias = _alias_at(data, start)
            if alias is not None and alias[1].split(b".")[0] in heads:
                aliases.add(alias[0])
        return aliases

    def _hands_over(self, data: bytes, start: int, end: int) -> bool:
        """The owner spelled at data[start:end] is stored into through its namespace or handed over with an
        attribute name (`indirect_installs.py`); in `getattr(` / `hasattr(` only when an attribute of the
        result is stored into."""
        if _QUERY_CALL.search(data, max(0, start - 40), start):
            return self._getattr_store.match(data, end) is not None
        return self._owner_tail.match(data, end) is not None

    def fsdp2_bindings(self, data: bytes) -> set[bytes]:
        """Names the file may bind to something in FSDP2 (imports, `C = torch...._fsdp_collectives`): what
        another file may import from it and patch through (over-approximated, as the rest of this class)."""
        if not self.has_token(data):
            return set()
        bound = {n for n in self.imported_names(data) if not n.startswith(b".")}
        for start, _ in self.mentions_of_fsdp2(data):
            alias = _alias_at(data, start)
            if alias is not None and self.reaches_fsdp2(alias[1]):
                bound.add(alias[0])
        return bound

    def reaches_fsdp2(self, dotted: bytes) -> bool:
        """`dotted` names an FSDP2 package, op namespace, or something in one (absolute paths only)."""
        name = dotted.decode("ascii", "replace")
        return any(name == p or name.startswith(p + ".") for p in self.vocabulary.packages)

    def worth_parsing(self, data: bytes, path: Optional[str] = None, named: Optional[bool] = None) -> bool:
        """Both stages: False only for a file that cannot hold a finding (`named`: `has_token`, if known)."""
        if path is not None and self.in_package(path):
            return self.could_hold_finding(data) or patches_relatively(data) or (self.unparsable and not _parses(data))
        if not (self.has_token(data) if named is None else named):
            return False
        return self.could_hold_finding(data) or (self.unparsable and not _parses(data))


def _parses(data: bytes) -> bool:
    """Whether CPython parses the file. A file that names FSDP2 is parsed even when its text can hold no finding,
    so that a syntax error in it is reported (FSU901, exit 1), as ruff reports every file it cannot parse."""
    import ast
    import warnings

    from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc

    try:
        with warnings.catch_warnings(), no_cyclic_gc():  # the tree is dropped at once: nothing to collect
            warnings.simplefilter("ignore")
            compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a decoding error is a SyntaxError too
        return False
    return True


_RELATIVE_FROM = LazyPattern(rb"^[ \t]*from[ \t]+\.[\w.]*[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.MULTILINE)


def patches_relatively(data: bytes) -> bool:
    """Inside an FSDP2 or patch package: a name imported relatively (`from . import _x`) is stored into
    (`_x.y = f`, `setattr(_x, ...)`). Upstream modules import relatively all the time but never do this."""
    for match in _RELATIVE_FROM.finditer(data):
        for alias in match.group(1).strip(b"()").split(b","):
            name = alias.split()[-1] if alias.split() else b""
            if not re.fullmatch(rb"\w+", name):
                continue
            escaped = re.escape(name)
            store = rb"^[ \t]*" + escaped + rb"(?:[ \t]*\.[ \t]*\w+)+[ \t]*=(?!=)"
            if re.search(store, data, re.MULTILINE) or re.search(rb"setattr\(\s*" + escaped + rb"\b", data):
                return True
    return False


def _minimal_exact(words: Iterable[bytes]) -> list[bytes]:
    kept: list[bytes] = []
    for word in sorted(set(words), key=len):
        if not any(shorter in word for shorter in kept):
            kept.append(word)
    return kept


def _has_mention(text: bytes, words: frozenset[bytes]) -> bool:
    return any(word in words for word in _WORD.findall(text))


_PREFILTERS: dict[int, Prefilter] = {}


def prefilter_for(catalog: Catalog) -> Prefilter:
    """One compiled prefilter per catalog object (catalogs are loaded once and cached)."""
    found = _PREFILTERS.get(id(catalog))
    if found is None or found.vocabulary != Vocabulary.from_catalog(catalog):
        found = _PREFILTERS[id(catalog)] = Prefilter(catalog)
    return found
