"""FSU106: a subclass of an FSDP2 class that overrides its methods, put where FSDP2 looks.

`class NpuParam(FSDPParam)` that redefines `init_all_gather_outputs` changes what FSDP2 runs once FSDP2
builds or is handed an `NpuParam`: when the class is assigned over FSDP2's name for it
(`_fsdp_param_group.FSDPParam = NpuParam`, or `setattr`), or passed to FSDP2 (a call into an FSDP2 module,
or an `FSDPModule` method such as `set_custom_all_gather(NpuAllGather())`). No attribute of FSDP2 is
assigned over the method, so the override rules cannot see it.

A subclass that only the project's own code constructs is not reported: FSDP2 never runs its methods
unless the project hands it over, and a hand-over through the project's own functions cannot be told
apart from ordinary use of a subclass. Judged per file, with one exception: an override of a private
method (`_name`) of FSDP2's private classes is reported wherever the class is handed over (another module,
a factory, a registry), since only FSDP2 calls those methods. torch's own modules are skipped: their
subclasses of FSDP2's classes are torch.

Read from the `ast` model of the file (`semantic/model.py`: its tree, import table and install sites), no
libcst (issue 32 item 4): each finding stands where libcst places the method's name (`planned.Located`,
`semantic/text.NodeText`), and the names are compared and quoted as written (ast normalizes identifiers).
A file whose model cannot be built (syntax newer than the running Python's) gets no finding.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import ast

    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.model import SemanticModel
    from fsdp_unpatch.semantic.text import NodeText


@functools.cache
def _upstream_digests() -> dict[str, dict[str, str]]:
    """target id -> torch release -> digest of its upstream code (the fingerprinted targets only)."""
    from fsdp_unpatch.fingerprint.upstream import DATA_PATH

    with open(DATA_PATH, encoding="utf-8") as handle:
        return json.load(handle).get("targets", {})


def changed_in(target: str) -> list[str]:
    """The torch releases whose upstream code of `target` differs from the release before (where known)."""
    from fsdp_unpatch.fingerprint.upstream import version_key

    digests = _upstream_digests().get(target, {})
    releases = sorted(digests, key=version_key)
    return [new for old, new in zip(releases, releases[1:]) if digests[old] != digests[new]]


def _installs(model: SemanticModel, text: NodeText, catalog: Catalog) -> dict[str, Located]:
    """Class names of the file handed to FSDP2 (as written) -> where: stored into an FSDP2 module or class, or
    passed (the class, or an instance made on the spot) to a call into FSDP2 or to an `FSDPModule` method. The
    first in the file's order wins: the install sites, then the calls by where they start (an outer call
    before the one it calls)."""
    import ast

    from fsdp_unpatch.analysis.planned import Located
    from fsdp_unpatch.catalog.symbols import load_symbols
    from fsdp_unpatch.semantic.imports import dotted
    from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

    table = model.table

    def into_fsdp2(name: Optional[str]) -> bool:
        target = target_id(table.qualify_dotted(name), catalog) if name else None
        return target is not None and is_fsdp2_private(target, catalog)

    found: dict[str, Located] = {}
    for install in model.installs:
        value = install.value_node
        if isinstance(value, ast.Name) and into_fsdp2(install.owner_name):
            report = install.report
            at = Located(report.start_line, report.start_column, report.end_line, report.end_column)
            found.setdefault(text.written(value), at)
    module_methods = load_symbols().tables.get("_fully_shard.FSDPModule", {})
    assert model.tree is not None
    calls = []
    for node in ast.walk(model.tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in module_methods) or into_fsdp2(dotted(func)):
                calls.append(node)
    calls.sort(key=lambda c: (c.lineno, c.col_offset, -c.end_lineno, -c.end_col_offset))  # type: ignore[operator]
    for call in calls:
        line, column = text.start(call)
        at = Located(line, column, call.end_lineno, text.column(call.end_lineno, call.end_col_offset))  # type: ignore[arg-type]
        for argument in [*call.args, *(k.value for k in call.keywords)]:  # libcst's Args: keywords, `*`, `**` too
            value = argument.value if isinstance(argument, ast.Starred) else argument
            value = value.func if isinstance(value, ast.Call) else value
            if isinstance(value, ast.Name):
                found.setdefault(text.written(value), at)
    return found


def _subclasses(model: SemanticModel, catalog: Catalog) -> list[tuple[ast.ClassDef, list[str]]]:
    """The file's classes (any depth, in the file's order) with the FSDP2 classes among their bases."""
    import ast

    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_class
    from fsdp_unpatch.semantic.imports import dotted, in_order

    assert model.tree is not None
    found = []
    for node in in_order(model.tree):
        if not isinstance(node, ast.ClassDef):
            continue
        names = [dotted(b.value if isinstance(b, ast.Starred) else b) for b in node.bases]  # as libcst's Args
        bases = [fsdp2_class(model.table.qualify_dotted(n) if n is not None else None, catalog) for n in names]
        fsdp2_bases = [b for b in bases if b is not None]
        if fsdp2_bases:
            found.append((node, fsdp2_bases))
    return found


def _private(name: str) -> bool:
    """`_name` (not `__dunder__`): a method of FSDP2's that only FSDP2 calls."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Read from the `ast` model of the file, each method named where libcst places its name (`Located`), names
    as written. A file whose model cannot be built (syntax newer than the running Python's) gets nothing: the
    rule only asks for a review, and its facts are the model's."""
    import ast

    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.catalog.symbols import load_symbols

    if analysis.module_name == "torch" or analysis.module_name.startswith("torch."):
        return  # torch's own subclasses of FSDP2's classes define it (`replicate_with_fsdp`)
    model = analysis.model
    if model is None or model.tree is None:
        return
    subclasses = _subclasses(model, catalog)
    if not subclasses:
        return
    symbols = load_symbols()
    text = analysis.node_text
    installed = _installs(model, text, catalog)
    for cls, bases in subclasses:
        cls_name = text.identifier(*text.name_after(cls, "class"))
        where = installed.get(cls_name)
        for statement in cls.body:  # directly in the class body: a method
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            line, column = text.name_after(statement, "def")
            name = text.identifier(line, column)
            if where is None and not _private(name):
                continue  # handed over nowhere this file shows, and a method the project may call itself
            base, releases = next(((b, r) for b in bases if (r := symbols.class_member(b, name))), (None, None))
            if base is None or releases is None:
                continue  # a name no FSDP2 base defines: new, nothing overridden
            target = f"{base}.{name}"
            changed = changed_in(target)
            form = "changed" if changed else "default"
            message = SUBCLASS_OVERRIDE.message(
                form if where is not None else f"{form}-elsewhere",
                method=f"{cls_name}.{name}",
                target=target,
                releases=symbols.describe(releases),
                changed=", ".join(changed),
                cls=cls_name,
                line=analysis.position(where).start.line if where is not None else 0,
            )
            yield Planned(SUBCLASS_OVERRIDE.code, Located(line, column, line, column + len(name)), message, target)


SUBCLASS_OVERRIDE = declare(
    "FSU106",
    "subclass-override",
    category="review",
    fix="none",
    phase="file",
    summary="A subclass of an FSDP2 class, handed to FSDP2, overrides one of its methods",
    messages={
        "default": "`{method}` overrides FSDP2 `{target}` (upstream in torch {releases}) and `{cls}` is handed "
        "to FSDP2 at line {line}: review what the override changes",
        "changed": "`{method}` overrides FSDP2 `{target}` (upstream in torch {releases}; its code changed in "
        "torch {changed}) and `{cls}` is handed to FSDP2 at line {line}: review what the override changes",
        "default-elsewhere": "`{method}` overrides FSDP2's private `{target}` (upstream in torch {releases}); "
        "only FSDP2 calls it, so `{cls}` is handed to FSDP2 somewhere: review where, and what the override changes",
        "changed-elsewhere": "`{method}` overrides FSDP2's private `{target}` (upstream in torch {releases}; its "
        "code changed in torch {changed}); only FSDP2 calls it, so `{cls}` is handed to FSDP2 somewhere: review "
        "where, and what the override changes",
    },
    check=check,
    subject="module",
    candidates=(shape("fsdp2-subclass"),),
    doc="""
    ## What it does
    Reports each method of a subclass of an FSDP2 class (`FSDPParam`, `FSDPParamGroup`,
    `DefaultAllGather`, ...) whose name the FSDP2 base defines in some torch release, when the file hands
    the subclass to FSDP2: assigns it over an FSDP2 name (`_fsdp_param_group.FSDPParam = NpuParam`,
    `setattr(...)`) or passes it, or an instance made on the spot, to a call into FSDP2 or to an
    `FSDPModule` method (`model.set_custom_all_gather(NpuAllGather())`). The message names the torch
    releases that define the method and, for the methods whose upstream code the tool keeps, the
    releases in which that code changed. An override of a private method (`_name`) is reported even when
    the file does not show the hand-over (the class is installed from another module, or by a factory):
    only FSDP2 calls its private methods, so the subclass is handed over somewhere.

    ## Why
    FSDP2 then runs the subclass's method in place of its own: an override as real as an assignment,
    which a torch upgrade can break (the method changes, moves or disappears). A subclass that only
    the project's own code constructs is not reported, nor a method FSDP2 never defines.

    ## Example
    ```python
    class NpuParam(FSDPParam):
        def init_all_gather_outputs(self, *args, **kwargs):  # FSU106
            ...

    _fsdp_param_group.FSDPParam = NpuParam
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


class LabelledGroup(FSDPParamGroup):
    def label(self):
        return "adapter"
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_state
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


class SyncedGroup(FSDPParamGroup):
    def finalize_backward(self):
        super().finalize_backward()
        print("synced")


_fsdp_state.FSDPParamGroup = SyncedGroup
"""
    )
]
