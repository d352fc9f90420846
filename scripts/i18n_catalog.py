#!/usr/bin/env python3
"""Extract the translatable strings, update each language's `.po`, and compile its `.mo` (with Babel).

What is extracted: the strings marked in the code (`_()`, `ngettext()`, `N_()`, `N_plural()`, the template of
`Phrase()`), every rule's message forms, summary and documentation (the rule registry), the help of every
command and option (read from click), the normalisations' descriptions and the catalog targets' reasons
(fragments of messages). New strings are added to each `.po` untranslated, strings no longer used are
dropped, and the `.mo` is written from the `.po`.

`--check` writes nothing and exits 1 when a `.po` lacks a string or keeps one no longer used, or when a
`.mo` differs from what its `.po` compiles to (a test runs it). Babel is needed here only: the tool reads
the `.mo` with the standard library's `gettext`.

Usage::

    python scripts/i18n_catalog.py [--check]
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fsdp_unpatch"
sys.path.insert(0, str(ROOT))

from fsdp_unpatch import i18n  # noqa: E402

KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "N_plural": (1, 2), "Phrase": None}
HEADER_COMMENT = (
    "# Simplified Chinese translations of fsdp-unpatch's messages, help and rule documentation.\n"
    "# Written by scripts/i18n_catalog.py, which adds new strings untranslated: translate each msgstr,\n"
    "# keeping every {placeholder} and code span, then run the script again to compile the .mo.\n"
    "# This file is distributed under the same license as the fsdp-unpatch project (BSD-3-Clause)."
)


def _marked() -> dict[object, list[str]]:
    """msgid (a string, or a (singular, plural) pair) -> where it is marked in the code."""
    found: dict[object, list[str]] = {}
    for filename, line, message, _comments, _context in extract_from_dir(
        str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=()
    ):
        if message:
            found.setdefault(message, []).append(f"fsdp_unpatch/{filename}:{line}")
    return found


def _help_texts(command, where: str, found: dict[object, list[str]]) -> None:
    import inspect

    import click

    for text in (command.help, command.short_help, command.epilog):
        if text:
            found.setdefault(inspect.cleandoc(text).partition("\f")[0], []).append(where)
    for param in command.params:
        if isinstance(param, click.Option) and param.help:
            found.setdefault(param.help, []).append(f"{where} {param.opts[0]}")
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            _help_texts(sub, f"{where} {name}", found)


def _declared() -> dict[object, list[str]]:
    """The strings declared as data: rules, command help, message fragments."""
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.cli import COMMANDS, main
    from fsdp_unpatch.fingerprint.normalise import PIPELINE
    from fsdp_unpatch.rules.registry import all_rules

    found: dict[object, list[str]] = {}
    for rule in all_rules().values():
        where = f"fsdp_unpatch/rules/{rule.module}.py {rule.code}"
        for form, text in rule.messages.items():
            found.setdefault(text, []).append(f"{where} message {form}")
        found.setdefault(rule.summary, []).append(f"{where} summary")
        found.setdefault(rule.doc, []).append(f"{where} doc")
    _help_texts(main, "fsdp-unpatch", found)
    for name, (spec, _short) in sorted(COMMANDS.items()):
        module, attribute = spec.split(":")
        _help_texts(getattr(importlib.import_module(module), attribute), f"fsdp-unpatch {name}", found)
    for normalisation in PIPELINE:
        if normalisation.label:
            found.setdefault(normalisation.label, []).append(f"normalisation {normalisation.name}")
    for target in load_catalog().targets.values():  # FSU201 and FSU101 say them, and `explain TARGET`
        found.setdefault(target.why.rstrip("."), []).append(f"catalog {target.id}")
    return found


def template() -> Catalog:
    """Every string to translate, as Babel's catalog (no translations)."""
    catalog = Catalog(project="fsdp-unpatch", header_comment=HEADER_COMMENT, fuzzy=False)
    for source in (_marked(), _declared()):
        for message, places in source.items():
            locations = [(place, None) for place in sorted(set(places))]
            catalog.add(message, locations=locations)
    return catalog


def po_path(language: str) -> Path:
    return PACKAGE / "locale" / i18n.CATALOG_FOLDERS[language] / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def read(language: str) -> Catalog:
    path = po_path(language)
    if not path.is_file():
        return Catalog(locale=i18n.CATALOG_FOLDERS[language], project="fsdp-unpatch", fuzzy=False)
    with open(path, "rb") as handle:
        return read_po(handle, locale=i18n.CATALOG_FOLDERS[language])


def _key(message) -> object:
    return message.id if isinstance(message.id, str) else tuple(message.id)


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=0, omit_header=False, sort_output=True, ignore_obsolete=True, no_location=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def updated(language: str) -> Catalog:
    """The language's catalog with every extracted string and no other (translations kept)."""
    catalog = read(language)
    created, revised = catalog.creation_date, catalog.revision_date
    catalog.update(template(), no_fuzzy_matching=True)
    catalog.obsolete.clear()
    # The dates stay as they were: the file changes only when its strings do.
    catalog.creation_date, catalog.revision_date = created, revised
    catalog.header_comment = HEADER_COMMENT
    catalog.last_translator = catalog.language_team = "fsdp-unpatch maintainers"
    catalog.msgid_bugs_address = "https://git.example.invalid/fsdp-unpatch"  # [project.urls] Homepage
    return catalog


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a catalog is out of date")
    args = parser.parse_args(argv)
    stale = []
    for language in i18n.CATALOG_FOLDERS:
        current = read(language)
        fresh = updated(language)
        po, mo = po_path(language), po_path(language).with_suffix(".mo")
        wanted = {_key(m) for m in fresh if m.id}
        have = {_key(m) for m in current if m.id}
        if wanted != have:
            stale.append(f"{po}: {len(wanted - have)} strings missing, {len(have - wanted)} no longer used")
        if not mo.is_file() or mo.read_bytes() != mo_bytes(current):
            stale.append(f"{mo}: differs from {po.name} compiled")
        if not args.check:
            po.parent.mkdir(parents=True, exist_ok=True)
            po.write_bytes(po_bytes(fresh))
            mo.write_bytes(mo_bytes(read(language)))
    if args.check and stale:
        print("\n".join(stale) + "\nrun: python scripts/i18n_catalog.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
