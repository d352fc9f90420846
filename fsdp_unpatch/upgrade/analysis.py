"""What moving from one torch release to another does to an override that stays.

An override is the function a project installs over an FSDP2 target. Against the two releases' texts of the
target (`fingerprint/releases.py`) it gets findings, worst first: the target is gone; the signature moved under a position
or keyword the override reads or passes; an attribute or private name it reads is no longer set or defined; a
copy drops upstream changes (named as statements); a wrapper inherits a changed body (information).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from fsdp_unpatch.fingerprint.releases import (
    Release,
    closest_release,
    named_changes,
    short,
    statement_changes,
)
from fsdp_unpatch.fingerprint.releases import function_node as _function
from fsdp_unpatch.i18n import Phrase

# Severity order of the kinds (worst first); a "break" or a dropped change makes `upgrade` exit 1.
KINDS = ("gone", "signature", "attribute", "name", "drops", "inherits", "unchanged")
BREAKS = frozenset({"gone", "signature", "attribute", "name", "drops"})
FSDP2_PACKAGES = ("torch.distributed.fsdp._fully_shard.", "torch.distributed._composable.fsdp.")


@dataclass(frozen=True)
class Change:
    kind: str  # one of KINDS
    message: str  # a `Phrase`: English in JSON, the reader's language in the text and the checklist
    line: Optional[int] = None  # in the override's file


@dataclass
class Verdict:
    """One override and what the move does to it."""

    target: str  # function id in the FSDP2 package, e.g. "_fsdp_collectives.foreach_reduce"
    path: str
    line: int
    role: str  # "wrapper", "copy" or "unknown" (the installed function was not found in its file)
    changes: list[Change] = field(default_factory=list)
    closest: Optional[str] = None  # for a copy: the release whose text it matches best
    body_changed: bool = False  # the target's text differs between the two releases

    @property
    def worst(self) -> int:
        return min((KINDS.index(c.kind) for c in self.changes), default=len(KINDS))

    @property
    def breaks(self) -> bool:
        return any(c.kind in BREAKS for c in self.changes)

    def to_dict(self) -> dict:
        return {
            "target": self.target,
            "path": self.path,
            "line": self.line,
            "role": self.role,
            "closest_release": self.closest,
            "body_changed": self.body_changed,
            "changes": [{"kind": c.kind, "message": c.message, "line": c.line} for c in self.changes],
        }


def function_id(target: str) -> str:
    """A catalog target ("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce" or
    "FSDPParamGroup.post_forward" style ids already relative) -> the id of the release data."""
    for prefix in FSDP2_PACKAGES:
        if target.startswith(prefix):
            return target[len(prefix) :]
    return target


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args]


def keyword_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {p.arg for p in a.args + a.kwonlyargs}


def _without_annotations(text: str) -> str:
    """The function without parameter, return and variable annotations (they do not change what it does)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.unparse(tree)


def _def_line(text: str) -> str:
    fn = _function(text)
    return short(ast.unparse(fn).splitlines()[len(fn.decorator_list)].rstrip(":"), 110)


def _calls_original(fn: ast.AST, short_name: str, originals: frozenset[str]) -> bool:
    """A wrapper calls what it replaces: the target's name, a factory's parameter, or a saved `orig_*` of it."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Attribute):  # only `super().f(...)`: `cache.allocate(...)` is another f
                via_super = isinstance(callee.value, ast.Call) and getattr(callee.value.func, "id", "") == "super"
                name = callee.attr if via_super or "orig" in callee.attr.lower() else ""
            else:
                name = getattr(callee, "id", "")
            if name == short_name or name in originals or "orig" in name.lower():
                return True
    return False


def _star_reads(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[tuple[int, int]], list[tuple[str, int]]]:
    """([(index, line)] of `args[N]`, [(name, line)] of `kwargs["x"]` / `kwargs.get("x")`) of *args/**kwargs."""
    star = fn.args.vararg.arg if fn.args.vararg else None
    double = fn.args.kwarg.arg if fn.args.kwarg else None
    positions, keywords = [], []
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            key = node.slice
            if isinstance(key, ast.Constant) and node.value.id == star and isinstance(key.value, int):
                positions.append((key.value, node.lineno))
            if isinstance(key, ast.Constant) and node.value.id == double and isinstance(key.value, str):
                keywords.append((key.value, node.lineno))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == double
            and node.func.attr in ("get", "pop")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            keywords.append((node.args[0].value, node.lineno))
    return positions, keywords


def _signature_changes(override, old_fn, new_fn, role: str, offset: int) -> list[Change]:
    old_params, new_params = parameters(old_fn), parameters(new_fn)
    if old_params == new_params and keyword_parameters(old_fn) == keyword_parameters(new_fn):
        return []
    out: list[Change] = []
    positions, keywords = _star_reads(override)
    is_method = bool(old_params) and old_params[0] == "self"
    for index, line in positions:
        at = index + (1 if is_method and parameters(override)[:1] == ["self"] else 0)
        was = old_params[at] if at < len(old_params) else None
        now = new_params[at] if at < len(new_params) else None
        if was != now:
            out.append(
                Change(
                    "signature",
                    Phrase(
                        "reads positional argument {index} (`{was}`), which is `{now}` in the new release",
                        index=index,
                        was=was,
                        now=now,
                    ),
                    line + offset,
                )
            )
    for name, line in keywords:
        if name in keyword_parameters(old_fn) and name not in keyword_parameters(new_fn):
            out.append(
                Change(
                    "signature",
                    Phrase("reads keyword `{name}`, which the new release no longer takes", name=name),
                    line + offset,
                )
            )
    if role == "copy" and not override.args.vararg:
        mine = parameters(override)
        if mine == old_params and mine != new_params:
            out.append(
                Change(
                    "signature",
                    Phrase(
                        "takes ({mine}); the new release's callers pass ({new})",
                        mine=", ".join(mine),
                        new=", ".join(new_params),
                    ),
                    override.lineno + offset,
                )
            )
    if not out and role == "wrapper" and not override.args.vararg and parameters(override) == old_params:
        out.append(
            Change(
                "signature",
                Phrase(
                    "spells out the old parameters ({old}); the new release takes ({new})",
                    old=", ".join(old_params),
                    new=", ".join(new_params),
                ),
                override.lineno + offset,
            )
        )
    return out


def _reads(fn: ast.AST) -> list[tuple[str, int]]:
    """`self.<attr>` reads (loads) of the override, with their lines."""
    return [
        (node.attr, node.lineno)
        for node in ast.walk(fn)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    ]


def judge(
    target: str,
    override: Optional[ast.FunctionDef | ast.AsyncFunctionDef],
    path: str,
    line: int,
    old: Release,
    new: Release,
    releases: dict[str, Release],
    offset: int = 0,
    originals: frozenset[str] = frozenset(),
) -> Verdict:
    """The verdict of one override of `target` (a release data id) moving from `old` to `new`."""
    old_text, new_text = old.functions.get(target), new.functions.get(target)
    short_name = target.rsplit(".", 1)[-1]
    role = (
        "unknown" if override is None else ("wrapper" if _calls_original(override, short_name, originals) else "copy")
    )
    verdict = Verdict(target, path, line, role, body_changed=old_text != new_text)
    if new_text is None:
        module = target.split(".")[0]
        moved = [f for f in new.functions if f.rsplit(".", 1)[-1] == short_name and f != target]
        where = Phrase("; {names} has that name now", names=", ".join(sorted(moved))) if moved else ""
        module_gone = Phrase(" (module {module} is gone)", module=module) if module not in new.names else ""
        gone = Phrase(
            "{target} is not in torch {version}{where}: the install raises or patches a name nobody calls{module_gone}",
            target=target,
            version=new.version,
            where=where,
            module_gone=module_gone,
        )
        verdict.changes.append(Change("gone", gone, line))
        return verdict
    if old_text is None:
        new_target = Phrase(
            "{target} is new in torch {version}: nothing to compare", target=target, version=new.version
        )
        verdict.changes.append(Change("inherits", new_target, line))
        return verdict
    old_fn, new_fn = _function(old_text), _function(new_text)
    if role == "copy" and override is not None:
        verdict.closest = closest_release(override, target, releases)
    if override is not None:
        verdict.changes.extend(_signature_changes(override, old_fn, new_fn, role, offset))
        cls = target.split(".")[1] if target.count(".") == 2 else None
        if cls is not None:
            before, after = old.attributes_set(cls), new.attributes_set(cls)
            seen = set()
            for attr, at in _reads(override):
                if attr in before and attr not in after and attr not in seen:
                    seen.add(attr)
                    verdict.changes.append(
                        Change(
                            "attribute",
                            Phrase(
                                "reads self.{attr}, which {cls} no longer sets in torch {version}",
                                attr=attr,
                                cls=cls,
                                version=new.version,
                            ),
                            at + offset,
                        )
                    )
    if old_text != new_text and _without_annotations(old_text) == _without_annotations(new_text):
        verdict.changes.append(
            Change(
                "unchanged",
                Phrase(
                    "{target} changed only in its annotations in torch {version}", target=target, version=new.version
                ),
                line,
            )
        )
    elif old_text != new_text:
        removed, added = statement_changes(old_text, new_text)
        named = named_changes(removed, added)
        if not added and not removed:  # the same statements: the `def` line (parameters, annotations) moved
            named = f"`{_def_line(old_text)}` -> `{_def_line(new_text)}`"
        if role == "copy":
            drops = Phrase(
                "the copy drops what torch {version} changed in {target}: {named}",
                version=new.version,
                target=target,
                named=named,
            )
            verdict.changes.append(Change("drops", drops, line))
        else:
            inherits = Phrase(
                "the wrapper inherits what torch {version} changed in {target}: {named}",
                version=new.version,
                target=target,
                named=named,
            )
            verdict.changes.append(Change("inherits", inherits, line))
    elif not verdict.changes:
        verdict.changes.append(
            Change(
                "unchanged",
                Phrase(
                    "{target} is the same in torch {old} and {new}", target=target, old=old.version, new=new.version
                ),
                line,
            )
        )
    verdict.changes.sort(key=lambda c: KINDS.index(c.kind))
    return verdict


def private_name_changes(imports: list[tuple[str, str, int]], old: Release, new: Release) -> list[Change]:
    """Names a file imports from FSDP2 modules ((module, name, line)) that the new release no longer defines."""
    out = []
    for module, name, line in imports:
        if name in old.names.get(module, frozenset()) and name not in new.names.get(module, frozenset()):
            message = Phrase(
                "imports {module}.{name}, which torch {version} no longer defines",
                module=module,
                name=name,
                version=new.version,
            )
            out.append(Change("name", message, line))
    return out
