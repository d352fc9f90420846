"""Which assignments to FSDP2 names are overrides, and how far a patch reaches, decided on the `ast` model.

- A name no supported torch release defines on that module or class (a sentinel flag, a debug hook,
  the original saved under a new name) is a new attribute, not an override (`symbols.py`). A name only
  some releases define is an override in those only, and the finding says so.
- A patch/unpatch pair: the original is saved (`orig = X.f`, `X._orig_f = X.f`, `self._orig = X.f`,
  `orig = getattr(X, "f")`, or reached later through a `functools.wraps` wrapper's `__wrapped__`), the
  patch installed, and the saved original put back (`X.f = orig` in a `finally:`, an `__exit__`, a fixture's
  teardown, an undo function). The restore overrides nothing; the install is reported once, as scoped.
- A string stored into a naming attribute (`FSDPModule.__module__ = "..."`, literals side by side included)
  renames for display and overrides nothing; a lone f-string there is an override like any other value.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Callable, Optional, Union

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import SymbolTables
from fsdp_unpatch.semantic.imports import dotted
from fsdp_unpatch.semantic.model import InstallSite, SemanticModel, one_string_token
from fsdp_unpatch.semantic.names import target_id
from fsdp_unpatch.semantic.scope_verdict import NAMING_DUNDERS, Verdict

TargetOf = Callable[[InstallSite], Optional[str]]  # an install site's canonical target id


class _Bound:
    """A name's value from `name = a.b.c`: its dotted spelling and the line it stands on."""

    def __init__(self, spelled: str, line: int) -> None:
        self.spelled, self.line = spelled, line


Value = Union[ast.expr, _Bound]


def _is_name(node: Value) -> Optional[str]:
    """The name a plain name spells (`None`, `True`, `False` count as names, as the install sites spell them)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool)):
        return str(node.value)
    return None


def _arguments(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in source order, keywords included."""
    every: list[ast.AST] = [*call.args, *call.keywords]
    every.sort(key=lambda a: (a.lineno, a.col_offset))  # type: ignore[attr-defined]
    return [a.value if isinstance(a, (ast.keyword, ast.Starred)) else a for a in every]  # type: ignore[misc]


def _literal(node: ast.expr, text: str) -> Optional[str]:
    """A string literal written as one token; None for anything else (literals side by side, an f-string)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    return node.value if one_string_token(ast.get_source_segment(text, node) or "") else None


def _parameters(node: ast.AST) -> set[str]:
    arguments = node.args  # type: ignore[attr-defined]
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in every}


class _Originals:
    """Where a file keeps the originals of FSDP2 names (each as the target id it holds).

    A read of `X.f` holds the original only if no install over `X.f` comes before it in the file:
    `_fsdp_param_group.foreach_reduce = _fsdp_collectives.foreach_reduce` after patching the latter
    copies the patch, it restores nothing.
    """

    def __init__(self, model: SemanticModel, text: str, catalog: Catalog, target_of: TargetOf) -> None:
        self.model, self.text, self.catalog, self.target_of = model, text, catalog, target_of
        self.table = model.table
        self.function_names = {f.name for f in model.functions}
        self.stored: dict[str, str] = {}
        for install in model.installs:
            held = self._direct(self._value(install), install.function)
            owner = self.table.qualify_dotted(install.owner_name) if install.owner_name is not None else None
            if held is not None and owner is not None and target_of(install) != held:
                self.stored[f"{owner}.{install.attribute}"] = held
        self.wrapped: dict[str, str] = {}
        for decorator, index in model.decorated:
            callee = dotted(decorator.func)
            qualified = self.table.qualify_dotted(callee) if callee is not None else ""
            arguments = _arguments(decorator)
            if qualified.endswith("functools.wraps") and arguments:
                held = self.held(arguments[0], model.functions[index].parent)
                if held is not None:
                    self.wrapped[model.functions[index].name] = held

    @staticmethod
    def _value(install: InstallSite) -> ast.expr:
        assert install.value_node is not None  # the model's builder sets it on every site
        return install.value_node

    def _target(self, qualified: Optional[str]) -> Optional[str]:
        return target_id(qualified, self.catalog) if qualified else None

    def _qualify(self, value: Value) -> Optional[str]:
        spelled = value.spelled if isinstance(value, _Bound) else dotted(value)
        return None if spelled is None else self.table.qualify_dotted(spelled)

    def _binding(self, name: str, scope: Optional[int]) -> Optional[Value]:
        """What a name read in `scope` (a function's index, None at module level) was bound to (`orig = X.f`,
        `orig = getattr(X, "f")`); None when it is a function of the file, a parameter, or bound to more than
        one thing: then it is no saved original. As in Python, the name is the innermost enclosing function's
        that binds it (a parameter included), else the module's: another function's `orig` is another name."""
        values: list[Value] = []
        while True:
            if scope is not None and name in _parameters(self.model.functions[scope].node):
                return None
            values = [
                _Bound(spelled, span.start_line)
                for (local, spelled, where), span in zip(self.model.aliases, self.model.alias_values)
                if local == name and where == scope
            ]
            if values or scope is None:
                break
            scope = self.model.functions[scope].parent
        if name in self.model.call_bindings:
            values.append(self.model.call_bindings[name])
        if name in self.function_names or len({self._qualify(v) for v in values}) != 1:
            return None
        return values[0]

    def _read(self, value: Value, scope: Optional[int]) -> Optional[tuple[str, int]]:
        """(target id, the line of what reads it) for `X.f`, `getattr(X, "f")`, or a name bound to one where
        `value` is read (`scope`)."""
        name = None if isinstance(value, _Bound) else _is_name(value)
        if name is not None and name in self.table.sources:
            imports = self.table.sources[name]
            target = self._target(self.table.qualify_dotted(name))
            if name in self.function_names or len(imports) != 1 or target is None:
                return None
            return target, imports[0].lineno  # an `ast.alias` in the model
        if name is not None:
            bound = self._binding(name, scope)
            if bound is None:
                return None
            value = bound
        if isinstance(value, ast.Call) and dotted(value.func) == "getattr" and len(_arguments(value)) >= 2:
            arguments = _arguments(value)
            attribute = _literal(arguments[1], self.text)
            owner = self._qualify(arguments[0])
            target = self._target(f"{owner}.{attribute}") if attribute and owner else None
        else:
            target = self._target(self._qualify(value))
        if target is None:
            return None
        return target, value.line if isinstance(value, _Bound) else value.lineno

    def _direct(self, value: Value, scope: Optional[int], ordered: bool = True) -> Optional[str]:
        read = self._read(value, scope)
        if read is None:
            return None
        target, line = read
        if ordered and self._patched_before(target, line):
            return None
        return target

    def _patched_before(self, target: str, line: int) -> bool:
        return any(
            self.target_of(i) == target
            and i.report.start_line < line
            and self._direct(self._value(i), i.function, ordered=False) != target
            for i in self.model.installs
        )

    def held(self, value: ast.expr, scope: Optional[int]) -> Optional[str]:
        """The target id whose original `value`, read in `scope`, holds, if it holds one."""
        if isinstance(value, ast.Attribute) and value.attr == "__wrapped__":
            inner = value.value
            if isinstance(inner, ast.Name) and inner.id in self.wrapped:
                return self.wrapped[inner.id]
            return self._direct(inner, scope, ordered=False)
        qualified = self._qualify(value)
        if qualified in self.stored:
            return self.stored[qualified]
        return self._direct(value, scope)


def _is_string(value: ast.expr, text: str) -> bool:
    """A string literal, or literals side by side (f-strings among them); a lone f-string is not one."""
    if isinstance(value, ast.JoinedStr):
        return _string_pieces(ast.get_source_segment(text, value) or "") > 1
    return isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes))


def _string_pieces(source: str) -> int:
    """How many string literals stand side by side in `source` (an f-string's inner strings not counted)."""
    pieces = depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            name = tokenize.tok_name[token.type]
            if name == "FSTRING_START":  # Python 3.12+: an f-string is several tokens
                pieces += depth == 0
                depth += 1
            elif name == "FSTRING_END":
                depth -= 1
            elif token.type == tokenize.STRING and depth == 0:
                pieces += 1
    except (tokenize.TokenError, SyntaxError):
        return 0
    return pieces


def verdicts(
    model: SemanticModel, text: str, catalog: Catalog, symbols: SymbolTables, target_of: TargetOf
) -> list[Optional[Verdict]]:
    """Each install site's verdict (None: its target is no FSDP2 name), in the model's order; `text`: what
    the model was built from."""
    originals = _Originals(model, text, catalog, target_of)
    out: list[Optional[Verdict]] = [None] * len(model.installs)
    restores: list[tuple[int, str]] = []
    for index, install in enumerate(model.installs):
        target = target_of(install)
        if target is None or install.attribute == "__code__":
            continue
        value = originals._value(install)
        if install.attribute in NAMING_DUNDERS and _is_string(value, text):
            out[index] = Verdict(False)  # renames for display: runs no other code
            continue
        held = originals.held(value, install.function)
        if held is not None and (held == target or held == catalog.twin_of(target)):
            out[index] = Verdict(False)
            restores.append((index, target))
            continue
        releases = symbols.releases(target)
        if releases is not None and not releases:
            out[index] = Verdict(False)  # a new attribute: nothing upstream is overridden
        elif releases is not None and len(releases) < len(symbols.minors):
            out[index] = Verdict(True, symbols.describe(releases))
        else:
            out[index] = Verdict(True)
    for index, target in restores:  # each restore at its install: the last one before it, else the first after
        line = model.installs[index].report.start_line
        installs = [
            (i.report.start_line, n)
            for n, i in enumerate(model.installs)
            if (out[n] or Verdict(False)).override and target_of(i) == target
        ]
        before = [pair for pair in installs if pair[0] < line]
        chosen = max(before, key=lambda p: p[0]) if before else min(installs, key=lambda p: p[0], default=None)
        if chosen is not None:
            out[chosen[1]].restored_at.append(line)  # type: ignore[union-attr]
    return out
