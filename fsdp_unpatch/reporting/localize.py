"""A finding's message in the reader's language, translated where it is printed.

A finding carries its message in English (the cache, the worker processes and the machine formats all see
that one text). The text reports translate it here: the message is matched against the English templates it
was made from (each rule's `messages=` forms, and the fragments the analysis puts into them below), and the
translated template is filled with the same fields, each translated in turn when it is itself a known
fragment. Names, code and paths in the fields stay as they are. A piece no template matches stays English.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Optional

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import N_

# Notes the analysis and the run add after a rule's message, each after "; " (`semantic/scope_verdict.py`,
# `run/engine.py`, `run/linking.py`): taken off the end of a message before its template is matched.
NOTE_TEMPLATES = (
    N_("an override in torch {releases} only (no other release defines `{name}`)"),
    N_("scoped: the original is restored at line {lines}"),
    N_("scoped: the original is restored at lines {lines}"),
    N_("kept for now: {path} (not in this run) names it"),
    N_("kept: {name} still names it outside what the fix changes"),
)
# Fragments the analysis writes into a message's fields (`{proof}` of `fingerprint/wording.py`, `{count}`,
# `{shown}` of `rules/unproven_override.py`), with their placeholders. Exact fragments (the normalisations' descriptions, the
# catalog targets' reasons) are in the catalog too: `scripts/i18n_catalog.py` collects them where declared.
FRAGMENT_TEMPLATES = (
    N_("matches torch {version} `{upstream}` up to: {normalisations}"),
    N_("matches torch {version} `{upstream}` exactly"),
    # the newest matched release when none is in the run's target torch (a copy of an older or newer body)
    N_("matches torch {version} `{upstream}` (outside the target torch) up to: {normalisations}"),
    N_("matches torch {version} `{upstream}` (outside the target torch) exactly"),
    N_("{count} statement"),
    N_("{count} statements"),
    N_("line {line}: `{text}`"),
    N_("line {line}: `{text}` (reads like upstream, but a name in it is bound to something else)"),
    N_("missing `{text}`"),
    N_("and {count} more"),
    N_("`{name}` wraps the original and may add behaviour"),
    # FSU101's release verdict of a target no proof covers (`rules/unproven_override.py`, `release_described`)
    N_("`{name}` is close to the body of no torch release: its own code"),
    N_("`{name}` is closest to the body of torch {closest}"),
    N_("`{name}` is closest to the body of torch {closest}; torch {judged} no longer has it"),
    N_("`{name}` is closest to the body of torch {closest}, which torch {judged} still has"),
    N_("`{name}` is closest to the body of torch {closest}; against torch {judged} it drops: {shown}"),
    N_("`{name}` is closest to the body of torch {closest}, newer than torch {judged}'s, which differs: {shown}"),
    N_("it installs `{value}`, a wrapper or factory that may add behaviour"),
    N_("native FSDP2 has no counterpart for what it may add"),
    N_("`{module}` imported `{name}` by name and keeps using the original"),
    N_("`{name}` itself, and every other module that reaches it, keeps the original"),
    # FSU101's `{how}` (`analysis/indirect_installs.py`)
    N_("unpacked from a tuple"),
    N_("through `vars()`"),
    N_("through `__dict__`"),
    N_("on an owner looked up at run time"),
    N_("by `setattr` on an owner looked up at run time"),
    N_("by `setattr` in a loop"),
    N_("by decorator `@{decorator}`"),
    # FSU203's `{what}` (`rules/vendored_fsdp2.py`)
    N_("op {ops}"),
    N_("ops {ops}"),
    N_("class {classes}"),
    N_("classes {classes}"),
    N_("op {ops} and class {classes}"),
    N_("op {ops} and classes {classes}"),
    N_("ops {ops} and class {classes}"),
    N_("ops {ops} and classes {classes}"),
)
# Fields that are one word or two (FSU303's `{kind}`, `rules/removed_function_test.py`): translated only as a whole field.
WORDS = (N_("test"), N_("test class"))
# What FSU9xx findings say about a file (`{problem}`: `files/reading.py`, `files/writing.py`,
# `analysis/source.py`, `fixes/transaction.py`, `run/engine.py`); the system's and the parser's own words in
# their fields stay as they are.
PROBLEM_TEMPLATES = (
    N_("syntax error: {message}"),
    N_("too deeply nested to parse safely: {message}"),
    N_("too deeply nested to parse safely (CPython's parser gives up on it too)"),
    N_("too deeply nested to parse safely (libcst's parser gives up on it)"),
    N_("too deeply nested to analyse (Python's recursion limit); the file is left alone"),
    N_("cannot decode file: {error}"),
    N_("cannot decode file as {encoding}: byte(s) {bad} at line {line}, column {column} ({reason})"),
    N_("declare the file's encoding with a PEP 263 comment or convert it"),
    N_("it reads as GBK: add `# -*- coding: gbk -*-` as its first or second line, or convert it to UTF-8"),
    N_("cannot read file: {reason}"),
    N_("file too large to read: more than {limit}"),
    N_(
        "file too large to parse safely: {size} (the limit is {limit}; libcst needs about 600 times a file's size in memory)"
    ),
    N_("file is read-only; not written (make it writable to apply the fix)"),
    N_("the fix empties this file, but it is read-only; not deleted"),
    N_("file changed on disk while it was being fixed; not written"),
    N_("cannot write file: {reason}; the file is unchanged"),
    N_("fixed text does not parse ({error}); not written"),
    N_("too deeply nested to rewrite (Python's recursion limit); not written"),
    N_("the fix lost a placeholder; not written"),
    N_("file changed on disk while it was being checked; not written"),
    N_("file changed on disk while it was being fixed; not deleted"),
    N_("the fix empties this file, but it is a symbolic link; not deleted (delete {path} and the link yourself)"),
    N_(
        "symbolic link to a file outside the folders being fixed ({target}); not written (name the file itself to fix it)"
    ),
    N_(
        "libcst does not give back this file byte for byte (a form feed at the start of a line, lines that end in "
        "a lone carriage return, or more implicitly joined string literals than libcst's parser takes?); not written"
    ),
    # why a fix's group is held back (`run/import_net.py`), then "; " and the note after it
    N_("{path}:{line} imports {name} from {module}, which this fix removes"),
    N_("{path}:{line} imports {name} from {module}, whose {how} may take it from {target}, where this fix removes it"),
    N_("{path}:{line} still uses {name}, which this fix removes"),
    N_(
        "no project root (pyproject.toml or .git) above {path} to search for importers of {names}, which this fix removes"
    ),
    N_("{path} cannot be read ({reason}) and may import {names}, which this fix removes"),
    N_("{path} cannot be parsed and may import {names}, which this fix removes"),
    N_("{names} (and {count} more)"),
    N_("not written (no file of this fix's group was changed)"),
)
# Fields that are line numbers: a number cannot swallow the text around it.
NUMBERS = {"line": r"\d+", "lines": r"\d+(?:, \d+)*"}
SEPARATOR = "; "
SEPARATORS = {i18n.CHINESE: "；"}


@functools.cache
def _pattern(template: str) -> re.Pattern[str]:
    """The regular expression of an English template: its text literally, each `{field}` any text."""
    parts, seen = [], set()
    pieces = list(string.Formatter().parse(template))
    for index, (literal, name, _spec, _conversion) in enumerate(pieces):
        parts.append(re.escape(literal))
        if name is None:
            continue
        after = pieces[index + 1][0] if index + 1 < len(pieces) else ""
        # A field between backticks is code, which holds no backtick: it cannot run into the next field.
        any_text = NUMBERS.get(name) or ("[^`]*?" if literal.endswith("`") and after.startswith("`") else None) or ".*?"
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{any_text})")
        seen.add(name)
    return re.compile("".join(parts), re.DOTALL)


def _literal_length(template: str) -> int:
    return sum(len(literal) for literal, *_ in string.Formatter().parse(template))


@functools.cache
def templates() -> tuple[str, ...]:
    """Every template a message can be made of, the most specific (most literal text) first."""
    from fsdp_unpatch.rules.registry import all_rules

    found = {form for rule in all_rules().values() for form in rule.messages.values()}
    found.update(FRAGMENT_TEMPLATES)
    found.update(NOTE_TEMPLATES)
    found.update(PROBLEM_TEMPLATES)
    return tuple(sorted(found, key=lambda t: (-_literal_length(t), t)))


def _exact(text: str) -> Optional[str]:
    """The catalog's translation of a whole sentence (never of a bare word: names stay names)."""
    if " " not in text:
        return None
    translated = i18n.gettext(text)
    return translated if translated != text else None


@functools.cache
def _literals(template: str) -> tuple[str, ...]:
    return tuple(literal for literal, *_ in string.Formatter().parse(template) if literal)


def _templated(text: str) -> Optional[str]:
    for template in templates():
        literals = _literals(template)
        if not literals:
            continue  # `{problem}`: the text is its own message, already tried as a whole
        if not all(literal in text for literal in literals):
            continue  # cheaper than the expression, and most templates fail here
        match = _pattern(template).fullmatch(text)
        if match is None:
            continue
        translated = i18n.gettext(template)
        if translated == template:
            return None  # not in the catalog: the completeness test says so
        fields = {name: _piece(value) for name, value in match.groupdict().items()}
        return translated.format(**fields)
    return None


@functools.cache
def _reasons_first_sentences() -> dict[str, str]:
    """FSU101's `{described}` when it is the start of a target's reason: English first sentence -> translated one."""
    from fsdp_unpatch.catalog import first_sentence, load_catalog

    found = {}
    for target in load_catalog().targets.values():
        translated = i18n.reason(target.why)
        if translated != target.why:
            found[first_sentence(target.why)] = translated.split("。")[0]
    return found


def _piece(text: str) -> str:
    """A field's value: translated when it is a fragment the catalog knows, else as it is."""
    if text in WORDS:
        return i18n.gettext(text)
    whole = _exact(text) or _templated(text) or _reasons_first_sentences().get(text)
    if whole is not None:
        return whole
    if SEPARATOR not in text:
        return text
    return _joined(text)


def _joined(text: str) -> str:
    """`a; b; c`: the longest known head, then the rest in turn (a message may carry notes after it)."""
    parts = text.split(SEPARATOR)
    separator = SEPARATORS.get(i18n.language(), SEPARATOR)
    for cut in range(len(parts) - 1, 0, -1):
        head = SEPARATOR.join(parts[:cut])
        translated = _exact(head) or _templated(head)
        if translated is not None:
            return translated + separator + _piece(SEPARATOR.join(parts[cut:]))
    rest = SEPARATOR.join(parts[1:])
    translated_rest = _piece(rest)
    if translated_rest == rest:
        return text  # nothing known in it: as it was written, separators included
    return parts[0] + separator + translated_rest


def _without_notes(message: str) -> tuple[str, list[str]]:
    """(the rule's message, the notes after it, in order)."""
    notes: list[str] = []
    peeled = True
    while peeled:
        peeled = False
        for template in NOTE_TEMPLATES:
            match = re.search(re.escape(SEPARATOR) + _pattern(template).pattern + "$", message, re.DOTALL)
            if match is not None:
                notes.insert(0, message[match.start() + len(SEPARATOR) :])
                message = message[: match.start()]
                peeled = True
    return message, notes


class FindingMessage(str):
    """A finding's message as a field of an `i18n.Phrase`: translated as `localized` translates it."""

    def translated(self) -> str:
        return localized(self)


def localized(message: str) -> str:
    """`message` (a finding's, in English) in the current language."""
    if i18n.language() == i18n.ENGLISH:
        return message
    body, notes = _without_notes(message)
    separator = SEPARATORS.get(i18n.language(), SEPARATOR)
    return separator.join([_piece(body), *(_piece(note) for note in notes)])
