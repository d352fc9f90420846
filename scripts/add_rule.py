#!/usr/bin/env python3
"""Scaffold a new rule: its module, a case where it fires, a case where it must not, the README row and its
section of the docs' rule reference.

Writes `fsdp_unpatch/rules/<name>.py` (the declaration, a `check` that yields nothing yet, one `VALID` and
one `INVALID` example), `tests/rules/<CODE>/<case>/example.py` and `tests/rules/<CODE>/ok_<case>/example.py`,
then regenerates the README's rules table and docs/rules.md's rule reference (`scripts/gen_readme_rules.py`).
Nothing else is touched: the registry finds the module by walking the package, and the dispatcher calls its
`check` for each subject of its kind (`--subject`, by default `module` for `--phase file`: each analysed
module, and `run` for `--phase run`: the analysed files of the whole run, once; `site`: each install site
with its verdict; the other kinds of `registry.SUBJECT_KINDS` as `analysis/subjects.py` types them).

The declaration says what makes a file a candidate for the rule (`candidates=`, `registry.Candidate`): the
gates that spare files a parse are compiled from the registered rules' declarations, so a file reaches the
new rule's check when it holds one of its shapes. The kinds whose subjects come from install sites (`site`,
`patches`, `replacement`, `installer`, `installer-calls`) declare `shape("fsdp2-store")` and
`shape("fsdp2-patch")`, `copy` declares `shape("same-device-copy")`, the kinds the run's linking hands over
(`reference`, `tests`, `strings`, `remains`) `shape("patch-part")`, `planned` `shape("suppression")`, and
`imports` nothing (its check reads every file of the run); `--candidates` adds more,
comma-separated: `fully_shard(` a call of that callee (`call("fully_shard")`), `fully_shard` the word anywhere
in the file (`word("fully_shard")`), or a shape of `registry.SHAPES` by name (`kernel-registration`). A
`module` or `run` rule declares what it reads: nothing reaches it otherwise. The new rule's cases and examples
fail until its `check` is written and the snapshots are reviewed (docs/development.md, "Adding a rule").

Usage::

    python scripts/add_rule.py FSU108 patched-hook --category review --fix none --phase file \\
        --summary "An FSDP2 hook replaced by hand"
    python scripts/add_rule.py FSU109 wrapped-hook --category review --fix none --phase file --subject site
    python scripts/add_rule.py FSU110 sharded-call --category review --fix none --phase file \\
        --candidates "fully_shard("
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fsdp_unpatch.rules import registry  # noqa: E402

MODULE = '''"""{code} ({name}): {summary_lower}."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator{sequence}

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import {registry_names}

if TYPE_CHECKING:
{check_imports}


{check}


{constant} = declare(
    "{code}",
    "{name}",
    category="{category}",
    fix="{fix}",
    phase="{phase}",
    summary="{summary}",
    messages="TODO: the finding's message, with {{placeholders}}",
    check=check,
    subject="{subject}",
{candidates}    doc="""
    ## What it does
    TODO: what the rule reports (and what its fix does).

    ## Why
    TODO: why it matters.

    ## Example
    ```python
    TODO
    ```
    """,
)

# TODO: samples in your own words; an INVALID one may carry `fixed=`, the file after the fix.
VALID = [Valid("x = 1\\n")]
INVALID = [Invalid("x = 1  # TODO: code the rule fires on\\n")]
'''

# The subject kind a rule's check takes by default, by phase.
SUBJECTS = {"file": "module", "run": "run"}
SUBJECT_IMPORT = "    from fsdp_unpatch.analysis.subjects import ModuleSubject"
PLANNED_IMPORT = "    from fsdp_unpatch.analysis.planned import Planned"
# What every check is typed with, after what its kind needs.
CONTEXT_IMPORTS = [
    "    from fsdp_unpatch.catalog import Catalog",
    "    from fsdp_unpatch.config.options import Options",
]
# A check that takes one subject in a file: (its parameters before the catalog, what it is handed).
IN_A_FILE = {
    "module": ("analysis: ModuleSubject", "one analysed file"),
    "site": (
        "site: Site, analysis: ModuleSubject",
        "one install site that overrides something: `site.install` (the statement, its owner, attribute and "
        "value) and `site.verdict`, the semantic model's verdict on it (its `kind`: proven, too_old, unproven, "
        "unknown, reviewed, outside_enhance, enhance, configured_keep; None for a `__code__` swap). Yield only "
        "for the verdicts this rule says",
    ),
    "patches": ("patches: Patches, analysis: ModuleSubject", "what the file's install sites patch, together"),
    "replacement": ("replacement: Replacement, analysis: ModuleSubject", "a replacement the planner decided goes"),
    "installer": ("installer: InstallerToGo, analysis: ModuleSubject", "an installer the planner decided goes"),
    "copy": ("copy: Copy, analysis: ModuleSubject", "a same-device special case outside the code that stays"),
    "installer-calls": (
        "analysis: ModuleSubject, installers: Mapping[str, Optional[Planned]]",
        "a file's calls of the installers the run removes",
    ),
    "reference": (
        "subject: RemovedReference, analysis: ModuleSubject",
        "one reference to a patch function the run removes, outside the tests that go (`subject.reference`: "
        "its node, the removed symbol and its native counterpart), handed over when the run links its files",
    ),
    "tests": (
        "tests: Tests, analysis: ModuleSubject",
        "a file's tests and identity assertions of the patch functions the run removes (`tests.facts`); record "
        "in `tests.covered` the references a fix of this rule deletes, which are then not rewritten",
    ),
    "strings": (
        "strings: Strings, analysis: ModuleSubject",
        "the names the run removes (`strings.removed`), for the string literals of a file that spells one",
    ),
}
TYPES = {
    "site": "Site",
    "patches": "Patches",
    "replacement": "Replacement",
    "installer": "InstallerToGo",
    "copy": "Copy",
    "reference": "RemovedReference",
    "tests": "Tests",
    "strings": "Strings",
}
FILE_CHECK = """{signature}
{docstring}
    # TODO: yield Planned(...) for each finding (with `edits` when the rule has a fix).
    yield from ()"""
RUN_CHECK = '''def check(analyses: Sequence[ModuleSubject], catalog: Catalog, options: Options) -> Iterator[Decision]:
    """This rule's decisions across the analysed files of a run, once every file is linked: `Add(analysis,
    Planned(...))` for a finding, `Drop` / `Require` on its own findings (`analysis/decisions.py`)."""
    # TODO: yield a decision for each finding (import libcst and the analysis here, not above).
    yield from ()'''


# The kinds whose check yields something else than the findings of one file: (its code, what it imports).
OTHER_CHECKS = {
    "remains": (
        '''def check(remains: Remains, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Add]:
    """This rule's decisions on what an earlier, safe-only fix left of a known patch module (`remains.module`)
    in one analysed file: `Add(analysis, Planned(...))` for a finding (`analysis/decisions.py`)."""
    # TODO: yield an `Add` for each finding (import libcst and the analysis here, not above).
    yield from ()''',
        [
            "    from fsdp_unpatch.analysis.decisions import Add",
            "    from fsdp_unpatch.analysis.subjects import ModuleSubject, Remains",
        ],
    ),
    "planned": (
        '''def check(planned: PlannedFile, catalog: Catalog, options: Options) -> Iterator[Finding]:
    """This rule's findings on a file once the run planned every finding (`planned.found`: the codes planned
    on each line; `planned.comments()`: its `# noqa` codes): `Finding(..., path=planned.display)`."""
    # TODO: yield a `Finding` for each finding (import the analysis here, not above).
    yield from ()''',
        ["    from fsdp_unpatch.analysis.subjects import PlannedFile", "    from fsdp_unpatch.model import Finding"],
    ),
    "imports": (
        '''def check(imports: ProjectImports, catalog: Catalog, options: Options) -> Iterator[FileFinding]:
    """This rule's findings on the run's files, for the imports in them (`imports.paths`, `.displays`,
    `.buffers`): `FileFinding(index, Finding(...))`, with the index of its file; the run's selection and its
    noqa comments (`imports.run`) are the check's to apply."""
    # TODO: yield a `FileFinding` for each finding (import the analysis here, not above).
    yield from ()''',
        ["    from fsdp_unpatch.analysis.subjects import FileFinding, ProjectImports"],
    ),
}


def check_of(subject: str) -> tuple[str, str, str]:
    """The check the scaffold writes for a kind of subject: (its code, its type-only imports, more names
    from `typing`)."""
    if subject == "run":
        imports = ["    from fsdp_unpatch.analysis.decisions import Decision", SUBJECT_IMPORT]
        return RUN_CHECK, "\n".join(sorted(imports + CONTEXT_IMPORTS)), ", Sequence"
    if subject in OTHER_CHECKS:
        code, imports = OTHER_CHECKS[subject]
        return code, "\n".join(sorted(imports + CONTEXT_IMPORTS)), ""
    parameters, handed = IN_A_FILE[subject]
    names = sorted(["ModuleSubject", *([TYPES[subject]] if subject in TYPES else [])])
    imports = "\n".join(
        sorted([PLANNED_IMPORT, SUBJECT_IMPORT.replace("ModuleSubject", ", ".join(names)), *CONTEXT_IMPORTS])
    )
    signature = f"def check({parameters}, catalog: Catalog, options: Options) -> Iterator[Planned]:"
    if len(signature) > 120:  # as ruff format breaks it
        signature = f"def check(\n    {parameters}, catalog: Catalog, options: Options\n) -> Iterator[Planned]:"
    sentence = f'"""The findings of this rule on {handed} (import libcst and the analysis here, not above)."""'
    docstring = "\n".join(textwrap.wrap(sentence, 110, initial_indent="    ", subsequent_indent="    "))
    typing_names = ", Mapping, Optional" if subject == "installer-calls" else ""
    return FILE_CHECK.format(signature=signature, docstring=docstring), imports, typing_names


FIRING_CASE = "# TODO: a project where {code} fires (README, Rule cases and snapshots).\nx = 1\n"
OK_CASE = "# TODO: a project where {code} must not fire.\nx = 1\n"


# What a rule of each kind of subject declares makes a file its candidate, before `--candidates`: the subjects
# of these kinds come from install sites (a `patches` or `installer-calls` check is called for every analysed
# module, with what its sites patch and the installers that go), or from same-device copies; the run's
# linking hands over what names a removed patch part, in the files that spell one (`patch-part`: the parts
# the catalog knows); a file with a `# noqa` comment reaches a `planned` check (`suppression`); an `imports`
# check reads every file of the run itself.
INSTALLS = ("fsdp2-store", "fsdp2-patch")
KIND_CANDIDATES = {
    "site": INSTALLS,
    "patches": INSTALLS,
    "replacement": INSTALLS,
    "installer": INSTALLS,
    "installer-calls": INSTALLS,
    "copy": ("same-device-copy",),
    "reference": ("patch-part",),
    "tests": ("patch-part",),
    "strings": ("patch-part",),
    "remains": ("patch-part",),
    "planned": ("suppression",),
}


def candidates_of(subject: str, spelled: str) -> list[str]:
    """The declaration's candidates, as Python: the kind's own, then `--candidates` (`fully_shard(` a call,
    a shape of `registry.SHAPES` by name, anything else a word)."""
    found = [f'shape("{name}")' for name in KIND_CANDIDATES.get(subject, ())]
    for item in (part.strip() for part in spelled.split(",")):
        if not item:
            continue
        if item.endswith("("):
            registry.call(item[:-1].strip())  # refuses a callee that is no identifier
            code = f'call("{item[:-1].strip()}")'
        elif item in registry.SHAPES and item not in registry.NAMED_SHAPES:
            code = f'shape("{item}")'
        else:
            code = f"word({json.dumps(item, ensure_ascii=False)})"  # a Python string literal, as ruff quotes it
        if code not in found:
            found.append(code)
    return found


def _candidates_line(found: list[str]) -> str:
    """The declaration's `candidates=(...)` line, or nothing (as ruff formats it)."""
    if not found:
        return ""
    spelled = ", ".join(found) + ("," if len(found) == 1 else "")
    line = f"    candidates=({spelled}),\n"
    if len(line) <= 121:
        return line
    return "    candidates=(\n" + "".join(f"        {code},\n" for code in found) + "    ),\n"


def registry_names(found: list[str]) -> str:
    """What the module imports from the registry, sorted as ruff's isort sorts it."""
    return ", ".join(sorted({"declare"} | {code.split("(")[0] for code in found}))


def module_name(name: str) -> str:
    return name.replace("-", "_")


def problems(code: str, name: str) -> list[str]:
    """Why the code or name cannot be added (empty when both can)."""
    rules = registry.all_rules()
    found = []
    if not re.fullmatch(r"FSU\d{3}", code):
        found.append(f"{code}: a code is FSU and three digits")
    elif code in rules:
        found.append(f"{code} is taken by {rules[code].name}")
    if not re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", name):
        found.append(f"{name}: a name is kebab-case (`collective-override`)")
    elif any(rule.name == name for rule in rules.values()):
        found.append(f"{name} is taken")
    elif module_name(name) in registry.SHARED_MODULES:
        found.append(f"{name}: `rules/{module_name(name)}.py` is a shared module")
    return found


def write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8") as handle:  # never overwrite
        handle.write(text)
    print(f"wrote {path.relative_to(REPO)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", help="the new rule's code (FSU108)")
    parser.add_argument("name", help="its name, kebab-case (patched-hook); the module is rules/patched_hook.py")
    parser.add_argument("--category", required=True, choices=registry.CATEGORIES)
    parser.add_argument("--fix", required=True, choices=registry.APPLICABILITIES)
    parser.add_argument("--phase", required=True, choices=("file", "run"))
    parser.add_argument(
        "--subject",
        choices=registry.SUBJECT_KINDS,
        help="the kind of subject its check takes (default: module for --phase file, run for --phase run)",
    )
    parser.add_argument("--summary", default="TODO: one line on what the rule reports")
    parser.add_argument("--case", default="fires", help="the firing case's folder name (its ok_ twin too)")
    parser.add_argument(
        "--candidates",
        default="",
        help="comma-separated shapes that make a file a candidate for the rule, beyond its kind's own: "
        "`fully_shard(` a call of that callee, `fully_shard` the word, or a shape of registry.SHAPES by name; "
        "the gates that spare files a parse keep such files, and only files that hold a declared shape reach it",
    )
    args = parser.parse_args()
    found = problems(args.code, args.name)
    if found:
        print("\n".join(found), file=sys.stderr)
        return 2
    module = module_name(args.name)
    summary = args.summary.replace('"', "'")
    subject = args.subject or SUBJECTS[args.phase]
    check, check_imports, typing_names = check_of(subject)
    try:
        candidates = candidates_of(subject, args.candidates)
    except ValueError as error:
        print(f"--candidates: {error}", file=sys.stderr)
        return 2
    write_new(
        REPO / "fsdp_unpatch" / "rules" / f"{module}.py",
        MODULE.format(
            code=args.code,
            name=args.name,
            category=args.category,
            fix=args.fix,
            phase=args.phase,
            summary=summary,
            summary_lower=summary[:1].lower() + summary[1:],
            constant=module.upper(),
            subject=subject,
            sequence=typing_names,
            check_imports=check_imports,
            check=check,
            candidates=_candidates_line(candidates),
            registry_names=registry_names(candidates),
        ),
    )
    cases = REPO / "tests" / "rules" / args.code
    write_new(cases / args.case / "example.py", FIRING_CASE.format(code=args.code))
    write_new(cases / f"ok_{args.case}" / "example.py", OK_CASE.format(code=args.code))
    subprocess.run([sys.executable, str(REPO / "scripts" / "gen_readme_rules.py")], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
