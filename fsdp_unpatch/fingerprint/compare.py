"""Is a replacement function a copy of an upstream FSDP2 function, up to named normalisations?

Both sides go through the same normalisations (`normalise.PIPELINE`), in the scope of their own module;
then the function name and the names of locals stop mattering (locals are renamed in order of first
appearance) and the two trees must be equal. When they are not, the smallest differing statements are
located at any nesting depth, and a short unified diff against the closest release is made.
"""

from __future__ import annotations

import ast
import copy
import difflib
import re
import sys
import textwrap
import warnings
from dataclasses import dataclass
from typing import Collection, Mapping, Optional, Sequence

from fsdp_unpatch.fingerprint.normalise import (
    DOCSTRINGS,
    PIPELINE,
    Context,
    FunctionNode,
    Normalisation,
    all_args,
    dotted_name,
    is_library_impl,
    local_names,
)
from fsdp_unpatch.fingerprint.scope import UNPARSABLE_MODULE, Scope
from fsdp_unpatch.fingerprint.spelling import strip_every_annotation
from fsdp_unpatch.fingerprint.upstream import (
    PathLike,
    Upstream,
    UpstreamFunction,
    default_upstream,
    read_dirs,
    short_name,
    version_dirs,
    version_key,
)

_LOCAL = "%v"  # renamed locals are "%v0", "%v1", ...: no identifier can collide with them
_DIFF_LINES = 40


@dataclass(frozen=True)
class Difference:
    line: int  # 1-based line in the given function source; 0 when the statement is missing from it
    text: str  # one-line summary of the differing (or missing upstream) statement
    # Set when the statement reads like upstream's but a name in it is bound to something else.
    rebound: bool = False


@dataclass(frozen=True)
class Evidence:
    matched: bool
    torch_version: Optional[str]
    # Labels of the normalisations needed to make the copy equal that release (when matched), or
    # used against the closest release (when not).
    normalisations: tuple[str, ...]
    differences: tuple[Difference, ...]
    calls_original: bool
    # Every known torch version whose upstream function the candidate equals (empty when not matched).
    matched_versions: tuple[str, ...] = ()
    # A short unified diff of the replacement against the closest release (when not matched).
    diff: str = ""
    # The normalisations needed against each of `matched_versions` (the same order): a copy may be closer to
    # an older release than to the newest it matches.
    matched_normalisations: tuple[tuple[str, ...], ...] = ()

    def match_in(self, releases: Collection[str]) -> Optional[tuple[str, tuple[str, ...]]]:
        """(version, normalisations) of the newest matched release whose `MAJOR.MINOR` is in `releases`
        ("2.9" takes "2.9.1"), or None when no matched release is."""
        found = None
        for index, version in enumerate(self.matched_versions):  # oldest first
            if ".".join(version.split("+")[0].split(".")[:2]) in releases:
                needed = self.matched_normalisations[index] if self.matched_normalisations else self.normalisations
                found = (version, needed)
        return found


@dataclass
class _Normalised:
    tree: FunctionNode
    traces: tuple  # one trace per normalisation of the pipeline
    lines: list[str]  # the text the tree was parsed from, for summaries


def parse_function(source: str) -> FunctionNode:
    """Parse the text of one ``def`` (indented or decorated; the last one when there are several)."""
    tree = ast.parse(textwrap.dedent(source))
    functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        raise ValueError("no function definition in the given source")
    return functions[-1]


def _alpha_rename(fn: FunctionNode) -> None:
    """Parameters and locals become %v0, %v1, ... in order of first appearance."""
    bound = local_names(fn)
    mapping: dict[str, str] = {}

    def new(name: Optional[str]) -> Optional[str]:
        if name and name in bound:
            mapping.setdefault(name, f"{_LOCAL}{len(mapping)}")
            return mapping[name]
        return name

    for arg in all_args(fn.args):
        arg.arg = new(arg.arg)  # type: ignore[assignment]
    for stmt in fn.body:
        for node in _in_order(stmt):
            if isinstance(node, ast.Name):
                node.id = new(node.id)  # type: ignore[assignment]
            elif isinstance(node, ast.arg):
                node.arg = new(node.arg)  # type: ignore[assignment]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                node.name = new(node.name)  # type: ignore[assignment]
            elif isinstance(node, ast.ExceptHandler):
                node.name = new(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                node.names = [new(n) or n for n in node.names]


def _in_order(node: ast.AST):
    """Depth-first, fields in ``_fields`` order: a stable 'order of appearance'."""
    yield node
    for field_name in node._fields:
        value = getattr(node, field_name, None)
        if isinstance(value, ast.AST):
            yield from _in_order(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    yield from _in_order(item)


def _normalise(source: str, ctx: Context, pipeline: Sequence[Normalisation]) -> _Normalised:
    text = textwrap.dedent(source)
    fn = parse_function(text)
    traces = tuple(step.rewrite(fn, ctx) for step in pipeline)
    fn.name = "_"
    _alpha_rename(fn)
    return _Normalised(fn, traces, text.splitlines())


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=True, include_attributes=False)


def _shape(node: ast.AST) -> str:
    """The dump with every local the same: aligns statements even when an inserted local shifts the numbering."""
    return re.sub(r"'%v\d+'", "'%v'", _dump(node))


def _loose(node: ast.AST) -> str:
    """The shape with every resolved global cut to its last name: equal for statements that read alike
    but whose names are bound to different things (`dist.Work` here, `torch.distributed.Work` there)."""
    return re.sub(r"Name\(id='[^'%]*?\.?([^'.%]+)'", r"Name(id='\1'", _shape(node))


def _without_blocks(node: ast.AST) -> ast.AST:
    shallow = copy.copy(node)
    for name in ("body", "orelse", "finalbody", "handlers"):
        if hasattr(shallow, name):
            setattr(shallow, name, [])
    return shallow


def _head(node: ast.AST) -> str:
    """The shape of a compound statement without its blocks (``if x:`` of an ``if``)."""
    return _shape(_without_blocks(node))


def _loose_head(node: ast.AST) -> str:
    return _loose(_without_blocks(node))


def _summary(lines: list[str], node: ast.AST, limit: int = 80) -> str:
    lineno = getattr(node, "lineno", 0)
    text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ast.unparse(node).splitlines()[0]
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Differ:
    """Pairs up statements block by block and keeps the smallest ones that differ."""

    def __init__(self, cand: _Normalised, up: _Normalised) -> None:
        self.cand, self.up = cand, up
        self.out: list[Difference] = []

    def extra(self, node: ast.AST) -> None:
        self.out.append(Difference(getattr(node, "lineno", 0), _summary(self.cand.lines, node)))

    def missing(self, node: ast.AST) -> None:
        self.out.append(Difference(0, _summary(self.up.lines, node)))

    def block(self, cand: list, up: list, key=_shape) -> None:
        """Align two statement lists by shape; what does not align is aligned again loosely (a statement
        whose names are bound elsewhere still pairs with upstream's), then reported."""
        matcher = difflib.SequenceMatcher(None, [key(s) for s in cand], [key(s) for s in up], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" and key is _shape:
                continue
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                for c, u in zip(cand[i1:i2], up[j1:j2]):
                    self.pair(c, u)
            elif key is _shape and i2 > i1 and j2 > j1:
                self.block(cand[i1:i2], up[j1:j2], key=_loose)
            else:
                for c in cand[i1:i2]:
                    self.extra(c)
                for u in up[j1:j2]:
                    self.missing(u)

    def pair(self, c: ast.AST, u: ast.AST) -> None:
        blocks = [n for n in ("body", "orelse", "finalbody", "handlers") if isinstance(getattr(c, n, None), list)]
        if type(c) is not type(u) or not blocks:
            self.differ(c, u, _loose(c) == _loose(u))
            return
        if _head(c) != _head(u):
            self.differ(c, u, _loose_head(c) == _loose_head(u))
        for name in blocks:
            self.block(getattr(c, name), getattr(u, name))

    def differ(self, c: ast.AST, u: ast.AST, rebound: bool) -> None:
        if rebound:  # reads like upstream's: a name in it is bound to something else
            self.out.append(Difference(getattr(c, "lineno", 0), _summary(self.cand.lines, c), rebound=True))
        else:
            self.extra(c)
            self.missing(u)

    def header(self) -> None:
        c, u = self.cand.tree, self.up.tree
        if [_shape(c.args), *map(_shape, c.decorator_list)] != [_shape(u.args), *map(_shape, u.decorator_list)]:
            first = min([c.lineno] + [d.lineno for d in c.decorator_list])
            self.out.append(Difference(first, _summary(self.cand.lines, c)))
            self.out.append(Difference(0, _summary(self.up.lines, u)))


def _differences(cand: _Normalised, up: _Normalised) -> list[Difference]:
    differ = _Differ(cand, up)
    differ.header()
    differ.block(cand.tree.body, up.tree.body)
    if not differ.out:  # same shapes, but the locals map inconsistently: locate by the exact dump
        matcher = difflib.SequenceMatcher(
            None, [_dump(s) for s in cand.tree.body], [_dump(s) for s in up.tree.body], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                for s in cand.tree.body[i1:i2]:
                    differ.extra(s)
                for s in up.tree.body[j1:j2]:
                    differ.missing(s)
    return differ.out


def _readable(source: str, name: str) -> list[str]:
    """The function as ``ast.unparse`` writes it, without docstrings and annotations, named ``name``."""
    fn = parse_function(source)
    DOCSTRINGS.rewrite(fn, Context(Scope("")))
    strip_every_annotation(fn)
    fn.decorator_list = [d for d in fn.decorator_list if not is_library_impl(d)]
    fn.name = name
    return ast.unparse(fn).splitlines()


def unified_diff(candidate: str, upstream: UpstreamFunction, version: str, target: str) -> str:
    name = short_name(target)
    lines = list(
        difflib.unified_diff(
            _readable(upstream.source, name),
            _readable(candidate, name),
            f"torch {version} {name}",
            "replacement",
            n=1,
            lineterm="",
        )
    )
    if len(lines) > _DIFF_LINES:
        lines = lines[:_DIFF_LINES] + [f"... ({len(lines) - _DIFF_LINES} more lines)"]
    return "\n".join(lines)


def _calls_original(source: str, target: str, original_names: frozenset[str]) -> bool:
    wanted = {short_name(target)} | set(original_names)
    for node in ast.walk(parse_function(source)):
        if not isinstance(node, ast.Call):
            continue
        call = dotted_name(node.func)
        if call is None:
            continue
        parts = call.split(".")
        if (
            call in wanted
            or parts[-1] in wanted
            or (len(parts) >= 2 and parts[-1] == "default" and parts[-2] in wanted)
        ):
            return True
    return False


def _used(pipeline: Sequence[Normalisation], cand: _Normalised, up: _Normalised) -> tuple[str, ...]:
    return tuple(step.label for step, c, u in zip(pipeline, cand.traces, up.traces) if step.label and c != u)


_upstream_cache: dict[tuple, _Normalised] = {}


def _normalised_upstream(function: UpstreamFunction, proven: bool, pipeline: Sequence[Normalisation]) -> _Normalised:
    key = (function.source, function.scope.key(), proven, tuple(p.name for p in pipeline))
    if key not in _upstream_cache:
        _upstream_cache[key] = _normalise(function.source, Context(function.scope, proven, upstream=True), pipeline)
    return _upstream_cache[key]


def compare_functions(
    candidate: str,
    candidate_scope: Scope,
    upstream: str,
    upstream_scope: Scope,
    *,
    no_grad_proven: bool = False,
    pipeline: Sequence[Normalisation] = PIPELINE,
) -> tuple[bool, tuple[str, ...]]:
    """(equal, normalisations needed) for two function texts, each in its own module's scope."""
    cand = _normalise(candidate, Context(candidate_scope, no_grad_proven), pipeline)
    up = _normalise(upstream, Context(upstream_scope, no_grad_proven, upstream=True), pipeline)
    return _dump(cand.tree) == _dump(up.tree), _used(pipeline, cand, up)


# Comparisons with the bundled upstream data, by their arguments: a pure function of them within a process
# (the data file and the installed torch do not change), asked again for every install site of one
# replacement and in each phase of a run (alone, linked, after the fix).
_COMPARED: dict[tuple, Evidence] = {}


def compare_to_upstream(
    function_source: str,
    target: str,
    *,
    scope: Optional[Scope] = None,
    original_names: frozenset[str] = frozenset(),
    upstream_dirs: PathLike | Sequence[PathLike] | None = None,
) -> Evidence:
    """Compare one replacement function with the upstream ``target`` of every known torch release
    (remembered for the process when compared with the bundled data, ``upstream_dirs`` None)."""
    if upstream_dirs is not None:
        return _compare_to_upstream(function_source, target, scope, frozenset(original_names), upstream_dirs)
    scope_key = None if scope is None else scope.key()
    key = (function_source, target, scope_key, frozenset(original_names))
    if key not in _COMPARED:
        _COMPARED[key] = _compare_to_upstream(function_source, target, scope, frozenset(original_names), None)
    return _COMPARED[key]


def _compare_to_upstream(
    function_source: str,
    target: str,
    scope: Optional[Scope],
    original_names: frozenset[str],
    upstream_dirs: PathLike | Sequence[PathLike] | None,
) -> Evidence:
    """Compare one replacement function with the upstream ``target`` of every known torch release.

    ``scope``: the replacement's module (its imports say what its free names are); without one, every
    free name but the builtins is taken to be the module's own, so nothing that uses a global matches.
    ``upstream_dirs``: None reads the data file (plus a newer installed torch); otherwise directories
    holding ``torch/...`` sources (one per version, named by version) or parents of such directories.

    When matched, ``torch_version`` is the newest matching version and ``matched_versions`` lists them
    all (``matched_normalisations``: what each of them needed; ``Evidence.match_in`` picks a target's);
    otherwise it is the version with the fewest differences (the newest on a tie).
    """
    unparsable = _unparsable(function_source)
    if unparsable is not None:
        return Evidence(False, None, (), (unparsable,), False)
    if scope is not None and scope.dynamic == UNPARSABLE_MODULE:
        version = ".".join(map(str, sys.version_info[:2]))
        return Evidence(False, None, (), (Difference(1, UNPARSABLE_MODULE.format(version=version)),), False)
    calls_original = _calls_original(function_source, target, frozenset(original_names))
    data = _upstream_for(target, upstream_dirs)
    releases: Mapping[str, UpstreamFunction] = data.functions.get(target, {})
    if not releases:
        return Evidence(False, None, (), (), calls_original)
    proven = data.no_grad_proven(target)
    cand = _normalise(function_source, Context(scope or Scope("<module>"), proven), PIPELINE)
    versions = sorted(releases, key=version_key)
    ups = {v: _normalised_upstream(releases[v], proven, PIPELINE) for v in versions}
    matched = tuple(v for v in versions if _dump(ups[v].tree) == _dump(cand.tree))
    if matched:
        needed = tuple(_used(PIPELINE, cand, ups[v]) for v in matched)
        return Evidence(True, matched[-1], needed[-1], (), calls_original, matched, matched_normalisations=needed)
    best_version, best = versions[-1], None
    for v in versions:  # oldest first; ties go to the newest
        found = _differences(cand, ups[v])
        if best is None or len(found) <= len(best):
            best_version, best = v, found
    return Evidence(
        False,
        best_version,
        _used(PIPELINE, cand, ups[best_version]),
        tuple(best or ()),
        calls_original,
        diff=unified_diff(function_source, releases[best_version], best_version, target),
    )


def _unparsable(function_source: str) -> Optional[Difference]:
    """Why CPython's parser cannot read the replacement, or None when it can.

    libcst knows newer syntax than the running Python (PEP 695 generics, PEP 701 f-strings on 3.11): such
    a replacement cannot be compared, so it is unproven, never a crash of the run."""
    try:
        with warnings.catch_warnings():  # remarks on the scanned code are not ours to print
            warnings.simplefilter("ignore")
            parse_function(function_source)
    except SyntaxError as error:
        version = ".".join(map(str, sys.version_info[:2]))
        return Difference(error.lineno or 1, f"syntax Python {version} cannot parse ({error.msg})")
    except (ValueError, RecursionError, MemoryError) as error:
        return Difference(1, f"code Python's parser refuses ({type(error).__name__})")
    return None


def _upstream_for(target: str, upstream_dirs) -> Upstream:
    if upstream_dirs is None:
        return default_upstream()
    if isinstance(upstream_dirs, (str, bytes)) or hasattr(upstream_dirs, "__fspath__"):
        upstream_dirs = [upstream_dirs]
    return read_dirs(version_dirs(upstream_dirs), [target])


def known_targets() -> frozenset[str]:
    """The target ids with upstream functions on record."""
    return frozenset(default_upstream().functions)
