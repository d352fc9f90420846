"""The README is a front door and docs/ holds the rest: links and anchors resolve, user pages name no test
file, every page is linked, and example output is what the tool prints (docs/development.md, Documentation)."""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, ROOT / "README.zh-CN.md", *sorted(DOCS.glob("*.md"))]
USER_PAGES = [page for page in PAGES if page.name != "development.md"]
README_MAX_LINES = 400

FENCE = re.compile(r"^(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+).*?\1")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*#*$")
TEST_FILE = re.compile(r"\btests/[\w.]")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks: a fence may show a link or a heading that is not one."""
    lines, fence = [], ""
    for line in text.splitlines():
        opening = FENCE.match(line)
        if opening and not fence:
            fence = opening.group(1)
        elif fence and line.strip() == fence:
            fence = ""
        elif not fence:
            lines.append(line)
    return lines


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_` dropped, spaces to
    `-`, and `-1`, `-2`, ... on repeats."""
    found: set[str] = set()
    for line in prose_lines(text):
        heading = HEADING.match(line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        unique, repeat = slug, 0
        while unique in found:
            repeat += 1
            unique = f"{slug}-{repeat}"
        found.add(unique)
    return found


def links(text: str) -> list[str]:
    """Every link target of the prose, inline code taken out (`x](y)` in backticks is no link)."""
    return [target for line in prose_lines(text) for target in LINK.findall(INLINE_CODE.sub("", line))]


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z+.-]*:", target):  # http:, https:, mailto: are not checked offline
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading gives #{anchor}")
    return broken


def test_anchors_are_made_as_github_makes_them() -> None:
    text = "# Tests and `--unsafe-fixes`\n## The `_foreach_copy_` audit\n## Use\n```\n# not a heading\n```\n## Use\n"
    assert anchors(text) == {"tests-and---unsafe-fixes", "the-_foreach_copy_-audit", "use", "use-1"}


def test_the_link_check_finds_a_broken_file_and_a_broken_anchor(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n## Part one\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n[ok](other.md#part-one) [ok](#page) [web](https://example.invalid/x#y) `[code](nowhere.md)`\n"
        "[gone](missing.md) [no anchor](other.md#part-two) [here](#nope)\n```\n[fenced](fenced.md)\n```\n",
        encoding="utf-8",
    )
    assert [entry.split(":")[0] for entry in broken_links(page)] == ["missing.md", "other.md#part-two", "#nope"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_user_pages_name_no_test_file(page: Path) -> None:
    """User docs say what is guaranteed; which test holds it is in docs/development.md."""
    named = [line for line in page.read_text(encoding="utf-8").splitlines() if TEST_FILE.search(line)]
    assert named == []


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in links(text)}
    assert [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked] == []


def test_the_readme_starts_with_the_two_commands_ci_runs() -> None:
    """The first block is the preview and the test command; `.ci/run` runs the second one as it is written."""
    block = README.read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "pip install . && fsdp-unpatch fix --diff examples/legacy_project"
    assert commands[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


@functools.cache
def _generator() -> ModuleType:
    script = ROOT / "scripts" / "gen_docs_examples.py"
    spec = importlib.util.spec_from_file_location("gen_docs_examples", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while it is built
    spec.loader.exec_module(module)
    return module


def test_every_example_is_shown_and_every_block_is_an_example() -> None:
    generator = _generator()
    shown = [match["name"] for page in PAGES for match in generator.BLOCK.finditer(page.read_text(encoding="utf-8"))]
    assert sorted(shown) == sorted(generator.EXAMPLES)


def test_a_stale_example_is_rewritten() -> None:
    generator = _generator()
    begin = "<!-- BEGIN example: flake8 (generated by scripts/gen_docs_examples.py) -->\n"
    stale = f"text\n{begin}```console\nold output\n```\n<!-- END example -->\nmore\n"
    fresh = generator.with_examples(stale, {"flake8": "```console\nnew output\n```\n"})
    assert fresh == f"text\n{begin}```console\nnew output\n```\n<!-- END example -->\nmore\n"


def test_timings_become_a_placeholder() -> None:
    generator = _generator()
    assert generator.TIMING.sub(generator.TIMING_PLACEHOLDER, "in 8 files. Took 1.44 s.") == "in 8 files. Took N.NN s."


def test_the_example_output_is_what_the_tool_prints() -> None:
    """Runs every example command on a copy of the bundled example: the pages must hold exactly its output."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs_examples.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


# The editor set-ups (issue 31 item 5): the VS Code snippet named one extension with another's settings, so the
# server never started; Neovim's fix-on-save wrote the file before the asynchronous fix-all edit arrived.
# Each generic LSP client extension reads its own setting names (from their pages' Feature Contributions).
VSCODE_SETTINGS = {
    "zsol.vscode-glspc": {"glspc.serverPath", "glspc.serverCommandArguments", "glspc.languageId", "glspc.pathPrepend"},
    "llllvvuu.glspc": {"glspc.server.command", "glspc.server.commandArguments", "glspc.server.languageId"},
}


def _editor_blocks(fence: str) -> list[str]:
    text = (DOCS / "integrations.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{fence}\n(.*?)^```", text, flags=re.M | re.S)


def test_the_vs_code_snippet_uses_the_settings_of_the_extension_it_installs() -> None:
    text = (DOCS / "integrations.md").read_text(encoding="utf-8")
    (installed,) = set(re.findall(r"code --install-extension ([\w.-]+)", text))
    settings = {key for block in _editor_blocks("json") for key in re.findall(r'"(glspc\.[\w.]+)"', block)}
    assert settings and settings <= VSCODE_SETTINGS[installed], (installed, settings)
    assert f"`{installed}`" in text.split("**VS Code**", 1)[1].split("\n\n", 1)[0]  # the prose names it too


def test_the_neovim_save_hook_applies_the_fix_all_edit_before_the_write() -> None:
    (hook,) = [block for block in _editor_blocks("lua") if "BufWritePre" in block]
    assert "request_sync(" in hook and '"textDocument/codeAction"' in hook  # waits for the answer
    assert "apply_workspace_edit(action.edit" in hook and "source.fixAll.fsdp-unpatch" in hook
    assert "vim.lsp.buf.code_action" not in hook  # asynchronous: the file would be written unfixed
