"""The ast tier: decide with CPython's own parser which files, analysed alone, can hold no finding.

The byte prefilter (`prefilter.py`) keeps every file that could hold a finding, judged on text. A file it
keeps is parsed here with CPython's C parser (`ast`, about 30 times faster than libcst and without
position metadata) and looked at once more, now with exact syntax: only if it can hold a finding does the
libcst tier (parse, `collect`, the rules, positions) run on it. On the installed torch sources this drops
4 of the 5 files the prefilter keeps (FSDP2's own modules register the native kernels; the compiler pass
only reads FSDP2 names).

`holds_no_finding` answers True only when every rule is ruled out; False means "undecided: use libcst".
It is compiled, as the prefilter is, from what the registered rules declare makes a file their candidate
(`registry.Candidate`): a file is undecided when it may hold one of the declared shapes, each tested here on
the syntax tree (a shape no rule declares is not looked for). It over-approximates what the libcst tier
finds in a file analysed on its own (`engine.Run` over that file): every finding goes through one of these
shapes, each checked with a superset of the libcst tier's test:

- an install site (`analysis/collect.py`: an attribute store, `setattr`) or a test patch / kernel
  registration call (`analysis/registrations.py`) whose owner or dotted string resolves into an FSDP2 root, a
  family module or `torch.ops`. Names resolve through every import of the file (any scope, each name to
  *every* module it is ever bound to, where libcst keeps the last), simple aliases (to a fixpoint) and the
  file's own function names; an unbound name stands for itself, as in `names.ImportTable.qualify`.
- a kernel registration (`impl`, `register_kernel`) outside FSDP2's own modules in a file that spells an
  op namespace (`fsdp`): FSU103 needs the namespace as a literal.
- a `sys.modules` entry stored under a key in FSDP2 (FSU107), or a `setitem` / `dict` call whose strings
  reach FSDP2 (FSU202); a class whose base resolves into FSDP2 (FSU106); outside torch, a class named like
  an FSDP2 class or an op definition for an op namespace (`define`, `custom_op`: FSU203).
- a same-device `_foreach_copy_` special case (FSU005): an `if`/`else` whose two branches are one call
  each (whatever the test), or a call with a `non_blocking` keyword or three arguments (the tweak written as
  one call), to a name that may stand for `torch._foreach_copy_` (or ends in `_foreach_copy_`).
- anything named after a known patch part (references, strings, tests, orphaned installers, the
  cross-file phase's `together`): the file spells one of the catalog's patch names.
- a suppression or `noqa` comment for this tool (FSU501, `skip-file`): the file spells `fsu` or
  `fsdp-unpatch`, in any case.
- a word a rule declares (`word("...")`: the file spells it), or a call of a callee a rule declares
  (`call("fully_shard")`: a call whose callee's last name is it, `Scan.called`).
- an error: the file is undecided unless it is within the parse limit, has no NUL byte, decodes in its
  declared encoding and CPython parses it; and unless its syntax tree is shallow enough that libcst's
  recursive visitors cannot run out of stack on it (`MAX_DEPTH`). This holds whatever the rules declare:
  without a tree no shape can be ruled out.

Cross-file keys (`model.Outcome`) of a file it decides are empty: they too come from install sites,
installers, replacements and patch names. `tests/test_tiers.py` runs both tiers (this one on and off) over
every fixture, the examples, the installed torch sources and the real torch-npu releases, and compares the
findings field by field. A new rule whose findings come from a file that holds none of these shapes
declares a word or a call (`candidates=`); a new kind of shape is added to `registry.Shape`, here and to
the prefilter, or that test fails for its fixtures.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.analysis.source import MAX_PARSE_BYTES
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.files.reading import decode_error
from fsdp_unpatch.fingerprint.same_device import dotted_name
from fsdp_unpatch.project.identity import module_name as module_name_of
from fsdp_unpatch.project.module_names import resolve_relative

# A deeper syntax tree is left to libcst: its visitors recurse several frames per level and may end in
# "too deeply nested to analyse" (FSU901), which this tier must not hide. Ordinary code stays below 30.
MAX_DEPTH = 48
# Callees (by last name) that may install, patch in a test, or register a kernel: `registrations.REGISTRATION_CALLEES`
# and `setattr` (`patterns.setattr_install`); `tests/test_tiers.py` checks that the two sets agree.
CALLEES = frozenset({"setattr", "patch", "object", "impl", "register_kernel", "setitem", "dict", "define", "custom_op"})
KERNEL_CALLEES = frozenset({"impl", "register_kernel"})  # `registrations.kernel_registrations`
DEFINING_CALLEES = frozenset({"define", "custom_op"})  # op definitions of a vendored copy (`registrations.defined_ops`)
_FOREACH_COPY, _FOREACH_COPY_QUALIFIED = "_foreach_copy_", "torch._foreach_copy_"
# The kinds of subject whose checks the `ast` findings never run (`Screen.model_stands_in`).
MODEL_ABSENT_KINDS = frozenset({"module", "run"})


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _single_call(block: list[ast.stmt]) -> Optional[ast.Call]:
    """The call of a block that is exactly one call statement."""
    if len(block) == 1 and isinstance(block[0], ast.Expr) and isinstance(block[0].value, ast.Call):
        return block[0].value
    return None


def _dotted_and_strings(nodes: list[ast.expr]) -> tuple[list[str], list[str]]:
    """The dotted names among `nodes`, and every string literal within them (as `Scan.calls` holds them)."""
    dotted = [d for d in map(dotted_name, nodes) if d is not None]
    strings = [n.value for a in nodes for n in ast.walk(a) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return dotted, strings


def _literals_at_most(data: bytes, node: ast.expr, lines: list[int]) -> int:
    """An upper bound of the string literals that make up a string node: half its quote characters."""
    if node.end_lineno is None or node.end_col_offset is None:
        return MAX_DEPTH + 1
    if node.lineno == node.end_lineno and node.end_col_offset - node.col_offset < 3:
        return 1
    if not lines:
        lines.append(0)
        for line in data.splitlines(keepends=True):  # bytes: "\n", "\r\n" and "\r", as CPython's tokenizer
            lines.append(lines[-1] + len(line))
    if node.end_lineno >= len(lines):
        return MAX_DEPTH + 1
    start = lines[node.lineno - 1] + node.col_offset  # ast columns are byte offsets
    end = lines[node.end_lineno - 1] + node.end_col_offset
    segment = data[start:end]
    return max(1, (segment.count(b'"') + segment.count(b"'")) // 2)


@dataclass
class Scan:
    """What one walk of a syntax tree found that a finding could come from (see the module doc)."""

    bindings: dict[str, set[str]] = field(default_factory=dict)  # local name -> every module it is bound to
    aliases: list[tuple[str, str]] = field(default_factory=list)  # `local = a.b.c`
    stores: list[tuple[str, str]] = field(default_factory=list)  # (owner, attribute) of `owner.attribute = ...`
    # (owner, key) of `vars(owner)["key"] = ...`, `owner.__dict__["key"] = ...`
    namespace_stores: list[tuple[str, str]] = field(default_factory=list)
    calls: list[tuple[list[str], list[str]]] = field(default_factory=list)  # (dotted arguments, strings)
    # (dotted names, strings) handed over together: decorator arguments, rows of a `for` (indirect_installs.py)
    handed: list[tuple[list[str], list[str]]] = field(default_factory=list)
    branch_calls: list[str] = field(default_factory=list)  # callees of one-call `if`/`else` branches
    keys: list[str] = field(default_factory=list)  # string keys stored into (`sys.modules["torch...."] = m`)
    bases: list[str] = field(default_factory=list)  # dotted base classes of class definitions
    classes: list[str] = field(default_factory=list)  # names of class definitions
    definitions: list[tuple[str, list[str]]] = field(default_factory=list)  # `define` / `custom_op`: strings
    called: set[str] = field(default_factory=set)  # last names of the callees of every call (`call(...)` shapes)
    kernel_call: bool = False  # an `impl` / `register_kernel` call
    too_deep: bool = False  # deeper than MAX_DEPTH: libcst's recursive visitors may fail on it


@dataclass
class Detail:
    """What a walk notes of names, for callers that need more than `Scan` (`excerpt.py`)."""

    uses: Counter = field(default_factory=Counter)  # `ast.Name` uses, as `collect.NameCounter` counts them
    names: set[str] = field(default_factory=set)  # every name spelled outside imports, strings and comments
    stores: set[str] = field(default_factory=set)  # names assigned to (targets of `=`, `for`, `with`, ...)
    chains: set[str] = field(default_factory=set)  # dotted chains (`torch.distributed.fsdp.x`), for `fixes/loads.py`


_CONTEXTS = (ast.Load, ast.Store, ast.Del)  # `ctx` of names and attributes: nothing to walk into
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def scan(
    tree: ast.AST,
    data: bytes,
    module_name: str,
    is_package: bool,
    found: Optional[Scan] = None,
    detail: Optional[Detail] = None,
    visit: Optional[tuple[frozenset[type], Callable[[ast.AST], None]]] = None,
    lines: Optional[list[int]] = None,
) -> Scan:
    """Walk `tree` (parsed from `data`) once and note what a finding could come from (into `found`, if given).

    For callers that note more in the same walk: `detail` gathers names (`Detail`); `visit` is
    (node types, function): the function is called with every node of those types; `lines` (offsets of
    `data`'s lines, filled on first need) may be shared by the walks of one `data`.
    """
    found = Scan() if found is None else found
    lines = [] if lines is None else lines

    def bind(local: str, qualified: str) -> None:
        found.bindings.setdefault(local, set()).add(qualified)

    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            found.too_deep = True
            return found
        kind = type(node)
        if kind is ast.Name:  # the commonest node: nothing below it
            if detail is not None:
                name = node.id  # type: ignore[attr-defined]
                detail.uses[name] += 1
                detail.names.add(name)
                if type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                    detail.stores.add(name)
            continue
        if visit is not None and kind in visit[0]:
            visit[1](node)
        if kind is ast.Constant or kind is ast.JoinedStr:
            if isinstance(getattr(node, "value", ""), (str, bytes)):
                # implicitly joined literals are one node here and a chain in libcst, one level per literal
                if depth + _literals_at_most(data, node, lines) > MAX_DEPTH:  # type: ignore[arg-type]
                    found.too_deep = True
                    return found
            if kind is ast.Constant:
                continue
        elif kind is ast.Import:
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.asname is not None:
                    bind(alias.asname, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    bind(head, head)
        elif kind is ast.ImportFrom:
            assert isinstance(node, ast.ImportFrom)
            if not any(alias.name == "*" for alias in node.names):
                base = resolve_relative(module_name, is_package, node.level or 0, node.module or "")
                if base is not None:
                    for alias in node.names:
                        bind(alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name)
        elif kind in _DEFINITIONS:
            for decorator in node.decorator_list:  # type: ignore[attr-defined]
                if isinstance(decorator, ast.Call):  # `@install_over(FSDPParamGroup, "x")` (indirect_installs.py)
                    found.handed.append(_dotted_and_strings(decorator.args))
            if kind is ast.ClassDef:
                found.bases += [b for b in map(dotted_name, node.bases) if b is not None]  # type: ignore[attr-defined]
                found.classes.append(node.name)  # type: ignore[attr-defined]
            if module_name:
                bind(node.name, f"{module_name}.{node.name}")  # type: ignore[attr-defined]
        elif kind is ast.Assign:
            assert isinstance(node, ast.Assign)
            value = dotted_name(node.value)
            if value is not None:
                found.aliases += [(t.id, value) for t in node.targets if isinstance(t, ast.Name)]
        elif kind is ast.Subscript:
            assert isinstance(node, ast.Subscript)
            if isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Constant):
                if isinstance(node.slice.value, str):
                    found.keys.append(node.slice.value)
                    namespace = node.value  # `vars(owner)["x"] = f`, `owner.__dict__["x"] = f`
                    if isinstance(namespace, ast.Call) and namespace.args:
                        namespace = namespace.args[0]
                    elif isinstance(namespace, ast.Attribute):
                        namespace = namespace.value
                    owner = dotted_name(namespace)
                    if owner is not None:
                        found.namespace_stores.append((owner, node.slice.value))
        elif kind is ast.For:
            assert isinstance(node, ast.For)
            if isinstance(node.iter, (ast.List, ast.Tuple)):  # rows of (owner, name, function)
                found.handed += [_dotted_and_strings(row.elts) for row in node.iter.elts if isinstance(row, ast.Tuple)]
        elif kind is ast.If:
            assert isinstance(node, ast.If)
            # `if <test>: copy(...) else: copy(...)` (`analysis/copies.py`), callees qualified; any
            # test, so that the spellings of the same-device test (`==`, `!=`, `not (...)`) all count
            first, second = _single_call(node.body), _single_call(node.orelse)
            if first is not None and second is not None:
                found.branch_calls += [c for c in (dotted_name(first.func), dotted_name(second.func)) if c is not None]
        elif kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            if detail is not None:
                detail.names.add(node.attr)
                chain = dotted_name(node)
                if chain is not None:
                    detail.chains.add(chain)
            if isinstance(node.ctx, ast.Store):
                owner = dotted_name(node.value)
                if owner is not None:
                    found.stores.append((owner, node.attr))
                else:  # an owner looked up at run time: `sys.modules["m"].x = f`
                    found.calls.append(_dotted_and_strings([node.value]))
        elif kind is ast.Call:
            assert isinstance(node, ast.Call)
            # the tweak as one call: `copy(dst, src, non_blocking=<same-device test>)`
            if len(node.args) >= 3 or any(k.arg == "non_blocking" for k in node.keywords):
                callee = dotted_name(node.func)
                if callee is not None:
                    found.branch_calls.append(callee)
            last = _last_name(node.func)
            if last is not None:
                found.called.add(last)
            if last in CALLEES:
                found.kernel_call = found.kernel_call or last in KERNEL_CALLEES
                arguments = [*node.args, *(k.value for k in node.keywords)]
                dotted = [d for d in map(dotted_name, arguments) if d is not None]
                strings = [
                    n.value
                    for a in arguments
                    for n in ast.walk(a)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                ]
                found.calls.append((dotted, strings))
                if last in DEFINING_CALLEES:
                    found.definitions.append((last, strings))
        # `a and b and c` is one node here and a chain in libcst, one level per operand
        step = depth + (len(node.values) if kind is ast.BoolOp else 1)  # type: ignore[attr-defined]
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        stack.append((item, step))
            elif isinstance(value, ast.AST) and type(value) not in _CONTEXTS:
                stack.append((value, step))
    return found


class Screen:
    """`holds_no_finding(data, path)` for one catalog."""

    def __init__(self, catalog: Catalog) -> None:
        from fsdp_unpatch.analysis.prefilter import Vocabulary

        words = Vocabulary.from_catalog(catalog)
        # patch parts, and the words a rule declares its candidates by: undecided here, parsed
        parts = words.patch_names if words.declares("patch-part") else frozenset()
        self.patch_names = tuple(sorted(n.encode() for n in parts | words.words))
        self.declared_calls = words.calls  # a call of one of these callees (by last name): undecided
        self.namespaces = tuple(sorted(n.encode() for n in words.op_namespaces))
        comments = (words.rule_prefix, "fsdp-unpatch") if words.declares("suppression") else ()
        self.comment_words = tuple(w.lower().encode() for w in comments if w)
        # the shapes looked for on the tree, as the registered rules declare them
        self.stores = words.declares("fsdp2-store")
        self.patches = words.declares("fsdp2-patch")
        self.kernels = words.declares("kernel-registration")
        self.definitions = words.declares("op-definition")
        self.named_classes = words.declares("fsdp2-class")
        self.subclasses = words.declares("fsdp2-subclass")
        self.entries = words.declares("module-entry")
        self.copies = words.declares("same-device-copy")
        # the calls of `CALLEES` that may set, patch or register into FSDP2 (`setattr`, `patch.object`,
        # `setitem(sys.modules, ...)`, `impl`): their owners and strings
        self.patching_calls = self.patches or self.entries or self.kernels
        # Whether the `ast` findings (`ast_findings.py`) may stand in for libcst on a file whose only shape is
        # plain stores (`fsdp2-store`): they run the checks of subjects `site`, `patches` and `installer-calls`
        # on the model and leave to libcst every file that gives another kind a subject (a proven or too-old
        # site: `replacement`, `installer`; a same-device copy: `copy`, a shape of its own), but they run no
        # check of a whole `module` or `run`. So a rule that declares plain stores and checks only those is
        # handed every such file by libcst.
        self.model_stands_in = not any(
            any(c.shape == "fsdp2-store" for c in rule.candidates)
            and {kind for kind, _ in rule.checks()} <= MODEL_ABSENT_KINDS
            for rule in catalog.rules.values()
            if rule.checks()
        )
        self.roots = tuple(catalog.fsdp2_roots)
        self.fsdp2_classes = frozenset(catalog.classes)
        self.prefixes = self.roots + tuple(catalog.family_modules.values()) + ("torch.ops",)

    def reaches(self, qualified: str) -> bool:
        """Whether a qualified name is, or is inside, an FSDP2 root, a family module or `torch.ops`."""
        return any(qualified == p or qualified.startswith(p + ".") for p in self.prefixes)

    def holds_no_finding(self, data: bytes, path: Path, excerpt_above: int = MAX_PARSE_BYTES + 1) -> bool:
        """True only when the file, analysed alone, gives no finding at all; False when undecided.

        A file of `excerpt_above` bytes or more is left undecided: its excerpt (`excerpt.py`) judges it
        statement by statement, without a syntax tree of the whole file in memory.
        """
        if len(data) > MAX_PARSE_BYTES or len(data) >= excerpt_above or b"\0" in data:
            return False
        if any(name in data for name in self.patch_names):
            return False
        lowered = data.lower()
        if any(word in lowered for word in self.comment_words):
            return False
        if decode_error(data) is not None:
            return False
        try:
            with warnings.catch_warnings(), no_cyclic_gc():
                warnings.simplefilter("ignore")
                tree = compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except Exception:  # a syntax error, too deep, ...: the libcst tier says what it is
            return False
        module_name, is_package = module_name_of(path, real=True)
        return self._decide(tree, data, module_name, is_package)

    def _decide(self, tree: ast.AST, data: bytes, module_name: str, is_package: bool) -> bool:
        prepared = self._prepared(tree, data, module_name, is_package)
        return prepared is not None and not self.hits(*prepared)

    def _prepared(
        self, tree: ast.AST, data: bytes, module_name: str, is_package: bool
    ) -> Optional[tuple[Scan, dict[str, set[str]], bool]]:
        """What `hits` is asked about the tree; None when the file may hold a finding whatever it holds."""
        found = scan(tree, data, module_name, is_package)
        if found.too_deep:
            return None
        bindings = self.resolve_aliases(found.bindings, found.aliases)
        if bindings is None:
            return None
        native = any(module_name.startswith(root + ".") for root in self.roots)
        if module_name == "torch" or module_name.startswith("torch."):
            found.bases.clear()  # torch's own subclasses and classes define FSDP2 (FSU106, FSU203 skip them too)
            found.definitions.clear()
        elif self.named_classes and any(name in self.fsdp2_classes for name in found.classes):
            return None  # may be a vendored copy of an FSDP2 module (FSU203)
        if self.definitions and self.defines_ops(found, data):
            return None  # may be a vendored copy of FSDP2's ops (FSU203)
        return found, bindings, self.spells_namespace(data) and not native

    def reaching_stores(
        self, tree: ast.AST, data: bytes, module_name: str, is_package: bool
    ) -> Optional[tuple[Counter, dict[str, set[str]]]]:
        """For a file whose every possible finding comes through an attribute store (no other clause of the
        tier holds): the stores (owner as spelled, attribute) that may reach FSDP2, counted, and the bindings
        `store_reaches` qualifies through; None when another clause holds."""
        prepared = self._prepared(tree, data, module_name, is_package)
        if prepared is None:
            return None
        found, bindings, kernels_count = prepared
        stores, found.stores = found.stores, []
        if self.hits(found, bindings, kernels_count):
            return None
        return Counter(s for s in stores if self.store_reaches(*s, bindings)), bindings

    def store_reaches(self, owner: str, attribute: str, bindings: dict[str, set[str]]) -> bool:
        return any(self.reaches(f"{q}.{attribute}") for q in self._qualify(owner, bindings))

    def defines_ops(self, found: Scan, data: bytes) -> bool:
        """`torch.library.define("fsdp::op", ...)` / `custom_op("fsdp::op")`, or `lib.define(...)` in a file that
        spells an op namespace (its `Library("fsdp", "DEF")`)."""
        prefixes = tuple(n.decode() + "::" for n in self.namespaces)
        for callee, strings in found.definitions:
            if any(s.startswith(prefixes) for s in strings) or (callee == "define" and self.spells_namespace(data)):
                return True
        return False

    def spells_namespace(self, data: bytes) -> bool:
        """Whether the file spells an op namespace (`fsdp`): FSU103 needs it as a literal."""
        return any(n in data for n in self.namespaces)

    def resolve_aliases(
        self, bindings: dict[str, set[str]], aliases: list[tuple[str, str]]
    ) -> Optional[dict[str, set[str]]]:
        """`bindings` grown by simple aliases (`C = torch...._fsdp_collectives`, `orig = C.foreach_reduce`), to a
        fixpoint; None when no fixpoint is reached (undecided)."""
        bindings = {name: set(values) for name, values in bindings.items()}
        for _ in range(len(aliases) + 1):
            changed = False
            for local, value in aliases:
                for qualified in self._qualify(value, bindings):
                    if qualified.startswith("torch.") and qualified not in bindings.get(local, ()):
                        bindings.setdefault(local, set()).add(qualified)
                        changed = True
            if not changed:
                return bindings
        return None

    def hits(self, found: Scan, bindings: dict[str, set[str]], kernels_count: bool) -> bool:
        """Whether what `scan` found may give a finding (may hold a declared shape), its names qualified
        through `bindings`."""
        if self.declared_calls and not self.declared_calls.isdisjoint(found.called):
            return True  # a call a rule declares makes the file its candidate (`call("fully_shard")`)
        if found.kernel_call and kernels_count and self.kernels:
            return True  # may register a kernel for an FSDP op (FSU103)
        for callee in found.branch_calls if self.copies else ():
            if callee.endswith(_FOREACH_COPY) or _FOREACH_COPY_QUALIFIED in self._qualify(callee, bindings):
                return True
        if self.entries and any(self.reaches(key) for key in found.keys):
            return True  # may replace an FSDP2 module in `sys.modules` (FSU107)
        for base in found.bases if self.subclasses else ():
            if any(self.reaches(q) for q in self._qualify(base, bindings)):
                return True  # may subclass an FSDP2 class (FSU106)
        for owner, attribute in found.stores if self.stores else ():
            if self.store_reaches(owner, attribute, bindings):
                return True
        for owner, attribute in found.namespace_stores if self.patches else ():
            if self.store_reaches(owner, attribute, bindings):
                return True  # `vars(owner)["x"] = f`, `owner.__dict__["x"] = f`
        for dotted, strings in found.handed if self.patches else ():  # an owner and an attribute name
            if any(self.reaches(f"{q}.{s}") for d in dotted for q in self._qualify(d, bindings) for s in strings):
                return True  # `(FSDPParamGroup, "x", f)`
        for dotted, strings in found.calls if self.patching_calls else ():
            if any(self.reaches(s) for s in strings):
                return True
            for argument in dotted:
                for qualified in self._qualify(argument, bindings):
                    if self.reaches(qualified) or any(self.reaches(f"{qualified}.{s}") for s in strings):
                        return True
        return False

    @staticmethod
    def _qualify(dotted: str, bindings: dict[str, set[str]]) -> set[str]:
        """Every qualified name `dotted` may stand for: its head as bound by any import or alias, or itself."""
        head, _, rest = dotted.partition(".")
        heads = bindings.get(head, set()) | {head}
        return {f"{h}.{rest}" if rest else h for h in heads}


_SCREENS: dict[int, tuple[Catalog, object, Screen]] = {}


def screen_for(catalog: Catalog) -> Screen:
    """One screen per catalog object (catalogs are loaded once and cached) and registry of rules (the
    registry is built once; a test may stand another in)."""
    found = _SCREENS.get(id(catalog))
    rules = catalog.rules
    if found is None or found[0] is not catalog or found[1] is not rules:
        found = _SCREENS[id(catalog)] = (catalog, rules, Screen(catalog))
    return found[2]
