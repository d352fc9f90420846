"""Edits that act on a module as a whole: add an import, delete the file.

`edits.apply_edits` replaces and deletes nodes; these two kinds of edit have no node of their own to
act on, so they name the module and are applied around the node edits:
- `AddImport`: after the node edits, the statement is inserted after the module's last top-level import
  (before its first definition), unless an identical top-level statement is already there. Several
  edits asking for the same import insert it once.
- `DeleteFile`: the module becomes empty, and the runner deletes the file instead of writing it (after
  checking that it did not change on disk), so a fix can remove a test module that has nothing left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst

from fsdp_unpatch.analysis.plan import Edit


@dataclass
class AddImport(Edit):
    """Insert `code` (an import statement) at module level. `node` is the module."""

    code: str = field(default="")


@dataclass
class DeleteFile(Edit):
    """Delete the file. `node` is the module."""


def split(edits: Sequence[Edit]) -> tuple[list[Edit], list[AddImport], bool]:
    """(node edits, imports to add, whether the file is deleted)."""
    node_edits = [e for e in edits if not isinstance(e, (AddImport, DeleteFile))]
    imports = [e for e in edits if isinstance(e, AddImport)]
    return node_edits, imports, any(isinstance(e, DeleteFile) for e in edits)


def deletes_file(edits: Sequence[Edit]) -> bool:
    return any(isinstance(e, DeleteFile) for e in edits)


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_future_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__"
        for s in statement.body
    )


def insertion_index(module: cst.Module) -> int:
    """Where new imports go: after the last top-level import before the first definition, else after
    the module docstring."""
    index = 0
    for position, statement in enumerate(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if _is_import_line(statement) or (position == 0 and _is_docstring(statement)):
            index = position + 1
    return index


def add_imports(module: cst.Module, additions: Sequence[AddImport]) -> cst.Module:
    existing = {module.code_for_node(s).strip() for s in module.body if _is_import_line(s)}
    wanted: list[str] = []
    for addition in additions:
        code = addition.code.strip()
        if code not in existing and code not in wanted:
            wanted.append(code)
    if not wanted:
        return module
    index = insertion_index(module)
    statements = [cst.parse_statement(code + "\n") for code in wanted]
    body = list(module.body)
    if index > 0 and not _is_import_line(body[index - 1]) or index > 0 and _is_future_import(body[index - 1]):
        # After the docstring or `from __future__`: a group of its own, as isort would write it.
        statements[0] = statements[0].with_changes(leading_lines=[cst.EmptyLine()])
    return module.with_changes(body=body[:index] + statements + body[index:])


def apply_module_edits(module: cst.Module, additions: Sequence[AddImport], delete: bool) -> cst.Module:
    if delete:
        return module.with_changes(body=[], header=[], footer=[])
    return add_imports(module, additions)


def delete_file(source, data: bytes = b"") -> None:
    """Delete a file a fix empties (`data` is ignored: the signature matches `transaction.write_atomic`).

    Like a write, it is refused when the file changed on disk since it was read, is read-only, or is a
    symbolic link (README, Safety); a group of one file of `transaction.commit`.
    """
    from fsdp_unpatch.fixes.transaction import Blocked, Change, commit

    try:
        commit([Change(source, b"", delete=True)])
    except Blocked as blocked:
        raise blocked.error from None
