"""`fsdp-unpatch rules` and `fsdp-unpatch explain CODE|TARGET`: the rule documentation, read from the rule
registry (`fsdp_unpatch/rules/`), and the target documentation, read from the catalog (the same
declarations and data the analysis and the reports use). `rules --output-format markdown` prints the
README's rules table (`scripts/gen_readme_rules.py` writes it there).
"""

from __future__ import annotations

import json
import sys
from typing import Optional

import click

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import gettext as _

EXIT_OK, EXIT_UNKNOWN = 0, 2


def _catalog():
    from fsdp_unpatch.catalog import load_catalog

    return load_catalog()


def _rules():
    from fsdp_unpatch.rules.registry import all_rules

    return all_rules()


def _targets_of(catalog, code: str) -> list:
    """The catalog targets a rule reports on (its declaration's `targets`): a category, or the FSDP ops."""
    kind = _rules()[code].targets
    if kind == "ops":
        return [t for t in catalog.targets.values() if t.id.startswith("ops.") and not t.id.endswith(".default")]
    return [t for t in catalog.targets.values() if kind is not None and t.category == kind]


def _markdown(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markdown_table(translated: bool = False) -> str:
    """The rules as the README's Markdown table; `translated`: headings and summaries in the current language
    (README.zh-CN.md), codes, names, categories and fixes as they are."""
    say = _ if translated else str
    rows = [[r.code, r.name, r.category, r.fix, say(r.summary)] for r in _rules().values()]
    return _markdown([say(c) for c in ("code", "name", "category", "fix", "summary")], rows)


def _print_table(title: str, columns: list[str], rows: list[list[str]], color: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    # Codes, names and targets are what `explain` takes back: never cut or folded. Only the last column, prose,
    # folds; a pipe gets the width the whole names need (rich would give it 80 columns).
    widths = [max([len(column), *(len(row[i]) for row in rows)]) for i, column in enumerate(columns)]
    table = Table(title=title, show_lines=False)
    for i, column in enumerate(columns):
        whole = i < len(columns) - 1
        table.add_column(column, overflow="fold", no_wrap=whole, min_width=widths[i] if whole else None)
    for row in rows:
        table.add_row(*row)
    needed = sum(widths[:-1]) + 3 * len(columns) + 1 + 30  # borders and padding, and room for the prose
    width = None if sys.stdout.isatty() else max(80, needed)
    Console(no_color=not color, highlight=False, soft_wrap=False, width=width).print(table)


@click.command()
@click.option("--output-format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--targets", "show_targets", is_flag=True, help="List the catalog's FSDP2 targets instead of the rules.")
@click.option("--no-color", is_flag=True, help="Never colour the output.")
def rules(output_format: str, show_targets: bool, no_color: bool) -> None:
    """List the rules: code, name, category, fix availability and summary."""
    catalog = _catalog()
    color = not no_color and sys.stdout.isatty()
    if show_targets:
        entries = [
            {
                "id": t.id,
                "category": t.category,
                "native": t.native,
                "since": t.since,
                "until": t.until,
                "native_since": t.native_since,
                "fingerprint": t.fingerprint is not None,
            }
            for t in sorted(catalog.targets.values(), key=lambda t: t.id)
        ]
        if output_format == "json":
            click.echo(json.dumps(entries, indent=2))
            return
        columns = [_("target"), _("category"), "torch", _("native device-agnostic since")]
        rows = [[e["id"], e["category"], catalog.targets[e["id"]].versions, e["native_since"] or ""] for e in entries]
        if output_format == "markdown":
            click.echo(_markdown(["target", "category", "torch", "native device-agnostic since"], rows))
            return
        _print_table(_("FSDP2 targets"), columns, rows, color)
        return
    entries = [
        {"code": r.code, "name": r.name, "category": r.category, "fix": r.fix, "summary": r.summary}
        for r in _rules().values()
    ]
    if output_format == "markdown":
        click.echo(markdown_table())
        return
    if output_format == "json":
        click.echo(json.dumps(entries, indent=2))
        return
    _print_table(
        _("fsdp-unpatch rules"),
        [_("code"), _("name"), _("category"), _("fix"), _("summary")],
        [[e["code"], e["name"], e["category"], e["fix"], _(e["summary"])] for e in entries],
        color,
    )


def _explain_rule(catalog, code: str) -> str:
    rule = _rules()[code]
    lines = [
        f"{rule.code} ({rule.name})",
        "",
        _("Category: {category}").format(category=rule.category),
        _("Fix: {fix}").format(fix=rule.fix),
        _("Summary: {summary}").format(summary=_(rule.summary)),
        "",
        _(rule.doc),
    ]
    targets = _targets_of(catalog, code)
    if targets:
        lines += ["", _("Targets:")]
        for target in sorted(targets, key=lambda t: t.id):
            lines.append(f"  {target.id}")
            lines.append("    " + _("native: {native}").format(native=target.native))
            if target.versions:
                lines.append("    " + _("exists: {versions}").format(versions=target.versions))
            if target.native_since:
                lines.append(
                    "    "
                    + _("native path serves non-CUDA devices since torch {version}").format(version=target.native_since)
                )
    return "\n".join(lines)


def explain_markdown(code: str) -> str:
    """What `explain CODE` says, as Markdown (the language server's hover), in the chosen language."""
    rule = _rules()[code]
    lines = [
        f"**{rule.code}** ({rule.name}): {_(rule.summary)}",
        "",
        _("Category: {category}; fix: {fix}").format(category=rule.category, fix=rule.fix),
        "",
        _(rule.doc),
    ]
    targets = sorted(t.id for t in _targets_of(_catalog(), code))
    if targets:
        lines += ["", _("Targets: {targets}").format(targets=", ".join(f"`{target}`" for target in targets))]
    return "\n".join(lines)


def _explain_target(catalog, target_id: str) -> str:
    target = catalog.targets[target_id]
    lines = [
        target_id,
        "",
        _("Category: {category}").format(category=target.category),
        _("Native: {native}").format(native=target.native),
    ]
    if target.versions:
        lines.append(_("Exists: {versions}").format(versions=target.versions))
    if target.native_since:
        lines.append(_("Native path serves non-CUDA devices since torch {version}").format(version=target.native_since))
    if target.fingerprint:
        lines.append(_("Replacements are compared with upstream `{name}`").format(name=target.fingerprint))
    twins = [f"{b.module}.{b.name}" for b in catalog.by_name_imports if f"{b.source}.{b.name}" == target_id]
    twins += [f"{b.source}.{b.name}" for b in catalog.by_name_imports if f"{b.module}.{b.name}" == target_id]
    if twins:
        from fsdp_unpatch.rules.registry import with_role

        twins_text = ", ".join(sorted(set(twins)))
        lines.append(
            _("Also bound by name as: {twins} (patch both; see {code})").format(
                twins=twins_text, code=with_role("stale-by-name-import").code
            )
        )
    lines += ["", i18n.reason(target.why)]
    return "\n".join(lines)


def _resolve(catalog, name: str) -> Optional[tuple[str, str]]:
    """("rule", code) or ("target", id) for a code (any case), a rule name, or a target id."""
    upper = name.upper()
    if upper in _rules():
        return "rule", upper
    by_name = {r.name: r.code for r in _rules().values()}
    if name in by_name:
        return "rule", by_name[name]
    if name in catalog.targets:
        return "target", name
    prefixes = {root: "" for root in catalog.fsdp2_roots}
    prefixes.update({module: f"{family}." for family, module in catalog.family_modules.items()})
    for root, prefix in prefixes.items():  # a fully qualified name works too
        if name.startswith(root + ".") and prefix + name[len(root) + 1 :] in catalog.targets:
            return "target", prefix + name[len(root) + 1 :]
    if name.startswith("torch.ops.") and name[len("torch.") :] in catalog.targets:
        return "target", name[len("torch.") :]
    return None


@click.command()
@click.argument("name")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain(name: str, output_format: str) -> None:
    """Explain a rule (code such as FSU001, or its name) or an FSDP2 target (catalog id)."""
    catalog = _catalog()
    found = _resolve(catalog, name)
    if found is None:
        click.echo(
            "fsdp-unpatch: "
            + _(
                "error: unknown rule code or target {name} "
                "(`fsdp-unpatch rules` lists the codes, `fsdp-unpatch rules --targets` the targets)"
            ).format(name=repr(name)),
            err=True,
        )
        sys.exit(EXIT_UNKNOWN)
    kind, key = found
    if output_format == "json":
        if kind == "rule":
            rule = _rules()[key]
            data = {
                "code": rule.code,
                "name": rule.name,
                "category": rule.category,
                "fix": rule.fix,
                "summary": rule.summary,
                "explanation": rule.doc,
                "targets": [
                    {"id": t.id, "native": t.native, "since": t.since, "until": t.until, "native_since": t.native_since}
                    for t in _targets_of(catalog, key)
                ],
            }
        else:
            t = catalog.targets[key]
            data = {
                "id": t.id,
                "category": t.category,
                "native": t.native,
                "since": t.since,
                "until": t.until,
                "native_since": t.native_since,
                "why": t.why,
            }
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(_explain_rule(catalog, key) if kind == "rule" else _explain_target(catalog, key))
