"""pylint's `parseable` format, `{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}`, which editors and CI
log parsers read. The symbol is the rule's name; there is no object."""

from __future__ import annotations

from fsdp_unpatch.model import RunResult
from fsdp_unpatch.quoting import printable, quoted_path
from fsdp_unpatch.reporting import ReportContext

TEMPLATE = "{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}"


def pylint_report(result: RunResult, context: ReportContext) -> str:
    return "".join(
        TEMPLATE.format(
            path=quoted_path(f.path),
            line=f.span.line,
            msg_id=f.code,
            symbol=context.catalog.rule(f.code).name,
            obj="",
            msg=f"[{f.category}] {printable(f.message)}",
        )
        + "\n"
        for f in result.remaining
    )
