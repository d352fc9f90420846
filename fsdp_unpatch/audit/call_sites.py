"""Finding `_foreach_copy_` call sites (calls, compiler registrations, mocks) in one file, telling their kind
and whether they can reach the backend's same-device fast path, and what to re-test."""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional, Union

from fsdp_unpatch.audit.devices import (
    Argument,
    Devices,
    Operand,
    arguments,
    assignments_in,
    one_line,
    qualify,
    same_device_verdict,
    string_value,
)
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.i18n import N_, Phrase
from fsdp_unpatch.project.identity import is_test_module
from fsdp_unpatch.semantic.imports import dotted, in_order, read_import
from fsdp_unpatch.semantic.names import ImportTable
from fsdp_unpatch.semantic.text import NodeText

FOREACH_COPY = frozenset(
    {"torch._foreach_copy_", "torch.ops.aten._foreach_copy_", "torch.ops.aten._foreach_copy_.default"}
)
MOCKS = frozenset({"unittest.mock.patch", "mock.patch", "unittest.mock.patch.object", "mock.patch.object"})
REGISTERED = re.compile(r"(^|\.)aten\._foreach_copy_?(\.default)?$")
SOURCE_TOKENS = (b"_foreach_copy",)

# The words below are marked for translation (`N_`, `Phrase`): the JSON form keeps them in English, the table
# (`report.py`) and the merge request's (`reporting/merge_request.py`) print them in the reader's language.
KINDS = {
    "fsdp2-collectives": N_("FSDP2 collectives path"),
    "graph-replay": N_("graph-replay input copy"),
    "lowering-registration": N_("compiler lowering registration"),
    "host-device-test": N_("host-device copy in tests"),
    "mocked": N_("mocked call"),
    "other": N_("other"),
}

RETEST = {
    "fsdp2-collectives": Phrase(
        "FSDP2 all-gather / fully_shard distributed tests; mixed precision (all-gather inputs)"
    ),
    "graph-replay": Phrase(
        "graph replay tests of the batched input copy, plus a real replay smoke test that checks outputs"
    ),
    "lowering-registration": Phrase("an inductor compile smoke test that lowers `aten._foreach_copy`"),
    "mocked": Phrase("keep it (it checks the call structure only); add a test with the real call"),
}
# What `fast_path` can say (the JSON's values, the table's words).
FAST_PATH = {
    "yes": N_("yes"),
    "no": N_("no"),
    "expected": N_("expected"),
    "likely": N_("likely"),
    "unknown": N_("unknown"),
    "not reached": N_("not reached"),
}


@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    column: int
    function: str  # enclosing `Class.method` / `function`, or `<module>`
    kind: str  # a key of KINDS
    code: str  # the call (or registration, or mock) as written, on one line
    destination: Optional[Operand]
    source: Optional[Operand]
    non_blocking: Optional[str]  # the argument as written; None: not passed (False)
    fast_path: str  # a key of FAST_PATH
    decided_by: str  # a `Phrase`: English in JSON, translated in the table
    retest: str  # a `Phrase` too

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kind_label"] = KINDS[self.kind]
        return data


MaybeExpression = Optional[ast.expr]
Scope = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _copy_operands(given: list[Argument]) -> tuple[MaybeExpression, MaybeExpression, MaybeExpression]:
    """(destination, source, non_blocking) of a `_foreach_copy_(self, src, non_blocking)` call."""
    positional = [a.value for a in given if a.keyword is None and not a.star]
    keywords = {a.keyword: a.value for a in given if a.keyword is not None}
    destination = positional[0] if positional else keywords.get("self")
    source = positional[1] if len(positional) > 1 else keywords.get("src")
    non_blocking = positional[2] if len(positional) > 2 else keywords.get("non_blocking")
    return destination, source, non_blocking


@dataclass(frozen=True)
class _Found:
    call: ast.Call
    scopes: tuple[Scope, ...]  # the enclosing `def`s and `class`es, outermost first
    statement: ast.stmt  # the innermost statement holding the call
    what: str  # "call", "mocked" or "registration"


def _scan(tree: ast.Module, table: ImportTable) -> list[_Found]:
    """The calls, mocks and registrations of `_foreach_copy_`, each with where it stands. A `def` or a `class`
    is the scope of all it holds, its decorators, defaults and bases too (libcst visited them so)."""
    found: list[_Found] = []
    stack: list[tuple[ast.AST, tuple[Scope, ...], Optional[ast.stmt]]] = [(tree, (), None)]
    while stack:
        node, scopes, statement = stack.pop()
        if isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.Call) and statement is not None:
            what = _what(node, table)
            if what:
                found.append(_Found(node, scopes, statement, what))
        inner = (*scopes, node) if isinstance(node, _SCOPES) else scopes
        stack.extend((child, inner, statement) for child in reversed(list(ast.iter_child_nodes(node))))
    return found


def _what(node: ast.Call, table: ImportTable) -> Optional[str]:
    qualified = qualify(table, node.func) or ""
    given = arguments(node)
    if qualified in FOREACH_COPY:
        return "call"
    if _is_mock(given, qualified, table):
        return "mocked"
    if any(REGISTERED.search(dotted(a.value) or "") for a in given):
        return "registration"
    return None


def _is_mock(given: list[Argument], qualified: str, table: ImportTable) -> bool:
    strings = [string_value(a.value) for a in given[:2]]
    if qualified in MOCKS or qualified.endswith("monkeypatch.setattr") or qualified.endswith("mocker.patch"):
        if strings and strings[0] in FOREACH_COPY:
            return True
        if len(given) >= 2 and strings[1] == "_foreach_copy_":
            return qualify(table, given[0].value) == "torch"
    return False


def _imports(tree: ast.Module, table: ImportTable) -> None:
    """The file's imports and its module aliases (`aten = torch.ops.aten`), in the order they are written."""
    for node in in_order(tree):
        read_import(node, table)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            qualified = qualify(table, node.value)
            if qualified and qualified.startswith("torch."):
                table.add_alias(node.targets[0].id, qualified)


def _function_name(scopes: tuple[Scope, ...]) -> str:
    return ".".join(s.name for s in scopes) or "<module>"


def _fsdp2_function_names(catalog: Catalog) -> frozenset[str]:
    """Module-level functions and ops of FSDP2's collectives (`all_gather_copy_in`, `get_param_all_gather_inputs`)."""
    names = set()
    for target in catalog.targets:
        parts = target.split(".")
        if parts[0] == "_fsdp_collectives" and len(parts) == 2:
            names.add(parts[1].lstrip("_"))
        elif parts[:2] == ["ops", "fsdp"] and len(parts) >= 3:
            names.add(parts[2])
    return frozenset(n for n in names if len(n) >= 12)  # long enough to be told apart inside another name


class _FileAudit:
    def __init__(self, path: str, tree: ast.Module, text: str, module_name: str, test_module: bool, catalog: Catalog):
        self.path = path
        self.tree = tree
        self.text = NodeText(text)
        self.module_name = module_name
        self.test_module = test_module
        self.fsdp2_names = _fsdp2_function_names(catalog)
        self.fsdp2_roots = catalog.fsdp2_roots

    def sites(self) -> list[CallSite]:
        table = ImportTable(self.module_name)
        _imports(self.tree, table)
        return [self.site(found, table) for found in _scan(self.tree, table)]

    def kind_of(self, what: str, function: str, scopes: tuple[Scope, ...]) -> str:
        if what == "mocked":
            return "mocked"
        if what == "registration":
            return "lowering-registration"
        words = {s.name.lower().removeprefix("_patched_").lstrip("_") for s in scopes if isinstance(s, _FUNCTIONS)}
        collective = any(name in word for word in words for name in self.fsdp2_names)
        if any(self.module_name.startswith(root) for root in self.fsdp2_roots) or collective:
            return "fsdp2-collectives"
        if re.search(r"graph|replay", f"{self.module_name}.{function}", re.IGNORECASE):
            return "graph-replay"
        return "other"

    def site(self, found: _Found, table: ImportTable) -> CallSite:
        scopes = found.scopes
        function = _function_name(scopes)
        kind = self.kind_of(found.what, function, scopes)
        code = one_line(self.text.code(found.call))
        destination = source = None
        non_blocking_text = None
        if found.what == "call":
            scope = next((s for s in reversed(scopes) if isinstance(s, _FUNCTIONS)), None)
            devices = Devices(table, self.text.code, assignments_in(scope))
            dst, src, non_blocking = _copy_operands(arguments(found.call))
            if dst is not None:
                destination = Operand(one_line(self.text.code(dst), 40), *devices.of(dst))
            if src is not None:
                source = Operand(one_line(self.text.code(src), 40), *devices.of(src))
            if non_blocking is not None:
                first = self.text.lines[found.statement.lineno - 1]
                non_blocking_text = self.text.code(non_blocking, first[: len(first) - len(first.lstrip(" \t"))])
        in_test = self.test_module or any(isinstance(s, _FUNCTIONS) and s.name.startswith("test") for s in scopes)
        fast_path, decided_by, retest = self.judge(kind, destination, source, non_blocking_text, in_test, function)
        if kind == "other" and in_test and fast_path == "no":
            kind = "host-device-test"
            retest = Phrase(
                "`pytest {path} -k {test}`: the `non_blocking` semantics stay",
                path=self.path,
                test=function.rsplit(".", 1)[-1],
            )
        line, column = self.text.start(found.call)
        return CallSite(
            self.path,
            line,
            column + 1,
            function,
            kind,
            code,
            destination,
            source,
            non_blocking_text,
            fast_path,
            decided_by,
            retest,
        )

    def judge(self, kind, destination, source, non_blocking, in_test, function) -> tuple[str, str, str]:
        blocking = (
            f"non_blocking={non_blocking}" if non_blocking is not None else Phrase("non_blocking not passed (False)")
        )
        if kind == "mocked":
            return "not reached", Phrase("the op is mocked: the backend never runs"), RETEST[kind]
        if kind == "lowering-registration":
            return (
                "not reached",
                Phrase("a compiler lowering, not the eager op; an eager fallback still calls it"),
                RETEST[kind],
            )
        if destination is None or source is None:  # `_foreach_copy_(*pair)`: the operands are not spelled out
            return (
                "unknown",
                Phrase("the operands are not written out: the devices cannot be read; {blocking}", blocking=blocking),
                Phrase("the callers' tests; synchronize before reading the destination on the host"),
            )
        verdict, why = same_device_verdict(destination, source)
        devices = Phrase(
            "dst {destination} ({destination_evidence}), src {source} ({source_evidence})",
            destination=_device_word(destination.device),
            destination_evidence=destination.evidence,
            source=_device_word(source.device),
            source_evidence=source.evidence,
        )
        decided = Phrase("{devices}; {blocking}", devices=devices, blocking=blocking)
        if kind == "fsdp2-collectives":
            if verdict == "unknown":
                verdict = "expected"
                decided = Phrase(
                    "FSDP2 copies between buffers on the training device; {devices}; {blocking}",
                    devices=devices,
                    blocking=blocking,
                )
            return verdict, decided, RETEST[kind]
        if kind == "graph-replay":
            if verdict == "unknown":
                verdict = "likely"
                decided = Phrase(
                    "replayed graph inputs are device tensors of the same dtype and shape; {devices}; {blocking}",
                    devices=devices,
                    blocking=blocking,
                )
            return verdict, decided, RETEST[kind]
        if verdict == "no":
            return (
                verdict,
                Phrase(
                    "{decided}: the copy takes the host-device path, which `non_blocking` controls", decided=decided
                ),
                Phrase("the callers' tests (the host-device path does not change)"),
            )
        if in_test and verdict == "yes":
            return (
                verdict,
                decided,
                Phrase(
                    "`pytest {path} -k {test}`: synchronize before reading the destination",
                    path=self.path,
                    test=function.rsplit(".", 1)[-1],
                ),
            )
        return verdict, decided, Phrase("the callers' tests; synchronize before reading the destination on the host")


def _device_word(device: Optional[str]) -> str:
    """A device in a sentence: `?` when the code does not show it; "pinned cpu" has words to translate."""
    if device is None:
        return "?"
    return Phrase("pinned cpu") if device == "pinned cpu" else device


def audit_paths(
    candidates: Iterable, catalog: Catalog, contents: Optional[Mapping[str, Optional[bytes]]] = None
) -> tuple[list[CallSite], list[tuple[str, str]]]:
    """(call sites sorted by path and line, (`path:line:column`, problem) of each file that could not be read or
    parsed; the problem in English, as `check` words it).

    `contents`: display path -> the bytes to audit instead of the file's on disk (None: the file is gone)."""
    from fsdp_unpatch.analysis.source import parse_python
    from fsdp_unpatch.files.reading import SourceError, SourceFile, read_source
    from fsdp_unpatch.project.identity import module_name as module_name_of

    sites: list[CallSite] = []
    errors: list[tuple[str, str]] = []
    for candidate in candidates:
        try:
            if contents is not None and candidate.display in contents:
                data = contents[candidate.display]
                if data is None:
                    continue
                source = SourceFile(Path(candidate.path), candidate.display, data, 0, len(data))
            else:
                source = read_source(candidate.path, candidate.display)
            if not any(token in source.data for token in SOURCE_TOKENS):
                continue
            tree, text = parse_python(source)
        except SourceError as error:
            errors.append((f"{candidate.display}:{error.line}:{error.column}", str(error)))
            continue
        name = module_name_of(Path(candidate.path), real=True)[0]
        audit = _FileAudit(candidate.display, tree, text, name, is_test_module(candidate.path), catalog)
        sites.extend(audit.sites())
    sites.sort(key=lambda s: (s.path, s.line, s.column))
    return sites, errors


# What a fix does to a call site (`audit_change`): the merge request's table says it per row.
REMOVED, STAYS, ADDED = "removed", "stays", "added"


def audit_change(
    candidates: Iterable, catalog: Catalog, before: Mapping[str, Optional[bytes]], after: Mapping[str, Optional[bytes]]
) -> list[tuple[CallSite, str]]:
    """The call sites of the tree a fix starts from, each with what the fix does to it (`REMOVED`, `STAYS`),
    then any call site only the fixed tree has (`ADDED`). `before` and `after`: display path -> the bytes of
    each file the fix changed (None: absent on that side); the other files are read from disk, once. A site
    of a changed file stays when the fixed file has the same call in the same function (lines may move)."""
    candidates = list(candidates)
    changed = set(before) | set(after)
    same, _ = audit_paths([c for c in candidates if c.display not in changed], catalog)
    touched = [c for c in candidates if c.display in changed]
    old, _ = audit_paths(touched, catalog, before)
    new, _ = audit_paths(touched, catalog, after)
    left: dict[tuple[str, str, str], int] = {}
    for site in new:
        key = (site.path, site.function, site.code)
        left[key] = left.get(key, 0) + 1
    rows = [(site, STAYS) for site in same]
    for site in old:
        key = (site.path, site.function, site.code)
        if left.get(key):
            left[key] -= 1
            rows.append((site, STAYS))
        else:
            rows.append((site, REMOVED))
    for site in new:
        key = (site.path, site.function, site.code)
        if left.get(key):
            left[key] -= 1
            rows.append((site, ADDED))
    rows.sort(key=lambda row: (row[0].path, row[0].line, row[0].column, row[1] == ADDED))
    return rows
