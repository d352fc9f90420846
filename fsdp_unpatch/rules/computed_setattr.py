"""FSU105: `setattr` on an FSDP2 module or class with an attribute name computed at run time.

Patch code often installs several overrides in a loop (`for name in NAMES: setattr(FSDPParamGroup, name,
wrap(getattr(FSDPParamGroup, name)))`). The name is not a literal, so no other rule can tell which internal
is overridden: every such override would go unreported. This rule reports the call itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Read from the `ast` model of the file (none without one: a review finding, as FSU103's)."""
    import ast

    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.registrations import calls_named
    from fsdp_unpatch.semantic.imports import dotted
    from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

    tree = analysis.model.tree if analysis.model is not None else None
    if tree is None:
        return
    text = analysis.node_text
    for call, statement in calls_named(tree, {"setattr"}):
        if not isinstance(call.func, ast.Name) or len(call.args) != 3 or call.keywords:
            continue
        if any(isinstance(a, ast.Starred) for a in call.args):
            continue
        owner, name = call.args[0], call.args[1]
        if isinstance(name, ast.Constant):
            continue  # a literal name: an install site, which the override rules report
        dotted_owner = dotted(owner)
        target = target_id(analysis.table.qualify_dotted(dotted_owner), catalog) if dotted_owner else None
        if target is None or not is_fsdp2_private(target, catalog):
            continue
        indentation = text.indentation(statement.lineno)
        spelled = {"owner": text.code(owner, indentation), "name": text.code(name, indentation)}
        line, column = text.start(call)
        end = text.column(call.end_lineno, call.end_col_offset)  # type: ignore[arg-type]
        where = Located(line, column, call.end_lineno, end)  # type: ignore[arg-type]
        yield Planned(COMPUTED_SETATTR.code, where, COMPUTED_SETATTR.message(**spelled, target=target), target)
    yield from _rows(analysis, catalog)


def _rows(analysis: ModuleSubject, catalog: Catalog) -> Iterator[Planned]:
    """`for owner, name, fn in [(FSDPParamGroup, "x", f), ...]: setattr(owner, name, fn)`: the owner is a
    loop variable too; one finding per FSDP2 internal the rows override (`analysis/indirect_installs.py`)."""
    from fsdp_unpatch.analysis.indirect_installs import found_in
    from fsdp_unpatch.analysis.planned import Planned

    for found in found_in(analysis, catalog):
        if found.loop and not found.reported:
            owner, name = found.arguments
            owner_target = found.target.rsplit(".", 1)[0]  # as for a fixed owner: the module or class set
            message = COMPUTED_SETATTR.message(owner=owner, name=name, target=owner_target)
            yield Planned(COMPUTED_SETATTR.code, found.at, message, found.target)


COMPUTED_SETATTR = declare(
    "FSU105",
    "computed-setattr",
    category="review",
    fix="none",
    phase="file",
    summary="`setattr` on an FSDP2 module or class with an attribute name computed at run time",
    messages="`setattr({owner}, {name}, ...)` sets an attribute of FSDP2 internal `{target}` whose name is "
    "computed at run time: no rule can tell which internal it overrides; spell each override out",
    check=check,
    subject="module",
    candidates=(shape("fsdp2-patch"),),
    doc="""
    ## What it does
    Reports `setattr(X, name, value)` where X is an FSDP2 private module or class and `name` is not a
    string literal (a loop variable, a computed string), and `setattr(owner, name, fn)` in a loop over a
    literal list of (owner, name, function) rows that name an FSDP2 module or class (one finding per
    internal the rows override; a row that puts back the saved original is none).

    ## Why
    Each call may override an FSDP2 internal, but which one is known only at run time: the other rules,
    which read the attribute's name, cannot report, prove or fix it. Spelling each override out
    (`FSDPParamGroup.post_backward = ...`) lets them, and lets a reader see what is patched.

    ## Example
    ```python
    for name in ("pre_backward", "post_backward"):
        setattr(FSDPParamGroup, name, _traced(getattr(FSDPParamGroup, name)))  # FSU105
    ```
    """,
)

VALID = [
    Valid(
        """class Trainer:
    def step(self):
        return 1


def wrap_all(names, wrap):
    for name in names:
        setattr(Trainer, name, wrap(getattr(Trainer, name)))
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def wrap_all(names, wrap):
    for name in names:
        setattr(FSDPParamGroup, name, wrap(getattr(FSDPParamGroup, name)))
"""
    )
]
